// The SUMMARIZED_BY links above the entities $ids: theirs and those of every entity above them
// (a variable-length walk up the hierarchy, a few layers deep), member and summary only. lca's
// hop asks it for the hundreds of entities a document names; the caller orders the rows.
// @param ids LIST<STRING>
MATCH (s:Entity)-[:SUMMARIZED_BY*0..]->(m:Entity)-[:SUMMARIZED_BY]->(p:Entity)
WHERE s.id IN $ids
RETURN DISTINCT m.id AS member, p.id AS summary
