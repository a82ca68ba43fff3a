// The entity graph exactly as gds_project.cypher projects it, row for row and in the same
// order (which numbers the projection's nodes), with each relationship's type, description and
// weight, for the copy of the projection in which a resident store (strata serve) finds paths
// (residentpaths.go). The entity graph generation is read in the same transaction, so the copy
// knows which projection it is a copy of.
// @param key STRING
OPTIONAL MATCH (m:StrataMeta {key: $key})
WITH m.value AS generation
MATCH (source:Entity)
OPTIONAL MATCH (source)-[r:RELATED|SUMMARIZED_BY]->(target:Entity)
WITH generation, source, r, target
ORDER BY source.id, target.id, type(r), r.weight
RETURN
  generation,
  source.id AS source,
  target.id AS target,
  type(r) AS type,
  r.description AS description,
  r.weight AS weight
