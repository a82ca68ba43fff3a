// Sets the report properties of communities made by ComputeCommunities. Unknown ids were
// rejected before by missing_communities.cypher.
// @param rows LIST<MAP>
UNWIND $rows AS row
MATCH (c:Community {id: row.id})
SET c.title = row.title,
    c.summary = row.summary,
    c.report = row.report,
    c.rating = row.rating,
    c.embedding = row.embedding
