// DocumentLinks: from the given chunks to the entities they mention, then to every document
// whose chunks mention such an entity (with its first such chunk), for entities mentioned in at
// most $maxDocuments documents. Chunks store their documentId, so no PART_OF hop is needed.
// @param chunkIds LIST<STRING>
// @param maxDocuments INTEGER
UNWIND $chunkIds AS chunkId
MATCH (:Chunk {id: chunkId})-[:HAS_ENTITY]->(e:Entity)
WITH DISTINCT e
MATCH (e)<-[:HAS_ENTITY]-(c:Chunk)
WITH e, c
ORDER BY c.seq
WITH e, c.documentId AS documentId, collect(c.id)[0] AS chunkId
WITH e, collect({documentId: documentId, chunkId: chunkId}) AS links
WHERE size(links) <= $maxDocuments
UNWIND links AS link
RETURN e.id AS entityId, link.documentId AS documentId, link.chunkId AS chunkId, size(links) AS documents
ORDER BY entityId, documentId
