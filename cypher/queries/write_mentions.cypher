// Upserts HAS_ENTITY relationships from chunks to the entities extracted from them.
// @param rows LIST<MAP>
UNWIND $rows AS row
MATCH (c:Chunk)
WHERE c.id = row.chunkId
MATCH (e:Entity)
WHERE e.id = row.entityId
MERGE (c)-[:HAS_ENTITY]->(e)
