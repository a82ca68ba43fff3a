// Upserts HAS_ENTITY relationships from chunks to the entities they mention, with the chunk's
// evidence about the entity: the name, type and description its extraction gave, and whether the
// mention only links the chunk to its document's subject (graph.Mention).
// @param rows LIST<MAP>
UNWIND $rows AS row
MATCH (c:Chunk)
WHERE c.id = row.chunkId
MATCH (e:Entity)
WHERE e.id = row.entityId
MERGE (c)-[m:HAS_ENTITY]->(e)
SET m.name = row.name,
    m.type = row.type,
    m.description = row.description,
    m.subject = row.subject
