// Deletes chunks with all their relationships (PART_OF, NEXT, HAS_ENTITY) and returns the ids of
// the documents they belonged to, so that their NEXT chains are rebuilt. Unknown ids are ignored.
// @param ids LIST<STRING>
UNWIND $ids AS id
MATCH (c:Chunk {id: id})
WITH c, c.documentId AS documentId
DETACH DELETE c
RETURN collect(DISTINCT documentId) AS documentIds
