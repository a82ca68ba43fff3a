// Sets the report properties of communities made by ComputeCommunities. Unknown ids were
// rejected before by missing_communities.cypher. Embeddings are stored as float32 arrays.
// @param rows LIST<MAP>
UNWIND $rows AS row
MATCH (c:Community {id: row.id})
SET c.title = row.title,
    c.summary = row.summary,
    c.report = row.report,
    c.rating = row.rating
WITH c, row
CALL (c, row) {
  WITH c
  WHERE row.embedding IS NOT NULL
  CALL db.create.setNodeVectorProperty(c, 'embedding', row.embedding)
}
CALL (c, row) {
  WITH c
  WHERE row.embedding IS NULL
  REMOVE c.embedding
}
