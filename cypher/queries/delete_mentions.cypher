// Deletes HAS_ENTITY relationships by chunk and entity id. Unknown pairs are ignored.
// @param rows LIST<MAP>
UNWIND $rows AS row
MATCH (:Chunk {id: row.chunkId})-[m:HAS_ENTITY]->(:Entity {id: row.entityId})
DELETE m
