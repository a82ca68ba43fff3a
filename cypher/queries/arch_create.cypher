// Creates attributed communities (their layer was emptied first by arch_delete). Embeddings are
// stored as float32 arrays, as entities' are.
// @param rows LIST<MAP>
UNWIND $rows AS row
CREATE (c:ArchCommunity {id: row.id, layer: row.layer, title: row.title, summary: row.summary})
WITH c, row
CALL (c, row) {
  WITH c
  WHERE row.embedding IS NOT NULL
  CALL db.create.setNodeVectorProperty(c, 'embedding', row.embedding)
}
