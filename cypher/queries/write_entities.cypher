// Upserts entities. componentId and degree belong to ComputeComponents: a new entity starts at
// -1 and 0, an updated one keeps its values. Entities of layer >= 1 carry the extra label
// Summary; an entity whose layer drops back to 0 loses it. Embeddings are stored as float32 arrays.
// @param rows LIST<MAP>
UNWIND $rows AS row
MERGE (e:Entity {id: row.id})
ON CREATE SET
  e.componentId = -1,
  e.degree = 0
SET e.name = row.name,
    e.type = row.type,
    e.description = row.description,
    e.layer = row.layer
WITH e, row
CALL (e, row) {
  WITH e
  WHERE row.embedding IS NOT NULL
  CALL db.create.setNodeVectorProperty(e, 'embedding', row.embedding)
}
CALL (e, row) {
  WITH e
  WHERE row.embedding IS NULL
  REMOVE e.embedding
}
CALL (e, row) {
  WITH e
  WHERE row.layer >= 1
  SET e:Summary
}
CALL (e, row) {
  WITH e
  WHERE row.layer < 1
  REMOVE e:Summary
}
