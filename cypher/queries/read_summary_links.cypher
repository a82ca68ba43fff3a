// Every SUMMARIZED_BY link with its description and weight, for the in-memory copy of a
// resident store (strata serve, summarylinks.go), with the entity graph generation it belongs
// to, read in the same transaction so that the two agree. Without any link, one row holds the generation.
// @param key STRING
OPTIONAL MATCH (meta:StrataMeta {key: $key})
WITH meta.value AS generation
OPTIONAL MATCH (m:Entity)-[r:SUMMARIZED_BY]->(p:Entity)
RETURN generation, m.id AS member, p.id AS summary, r.description AS description, r.weight AS weight
