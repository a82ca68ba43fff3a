// DocumentLinks: from the given chunks to the entities they mention, then to every document
// whose chunks mention such an entity, for entities mentioned in at most $maxDocuments
// documents. Chunks store their documentId, so no PART_OF hop is needed.
// @param chunkIds LIST<STRING>
// @param maxDocuments INTEGER
UNWIND $chunkIds AS chunkId
MATCH (:Chunk {id: chunkId})-[:HAS_ENTITY]->(e:Entity)
WITH DISTINCT e
MATCH (e)<-[:HAS_ENTITY]-(c:Chunk)
WITH e, collect(DISTINCT c.documentId) AS documents
WHERE size(documents) <= $maxDocuments
UNWIND documents AS documentId
RETURN e.id AS entityId, documentId, size(documents) AS documents
ORDER BY entityId, documentId
