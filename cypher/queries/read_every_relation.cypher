// Every RELATED relationship with what ExpandLocal and Relations return of it, for the in-memory
// copy of a resident store (strata serve, residentlocal.go), with the entity graph generation
// it belongs to, read in the same transaction so that the two agree. Without any relationship,
// one row holds the generation.
// @param key STRING
OPTIONAL MATCH (meta:StrataMeta {key: $key})
WITH meta.value AS generation
OPTIONAL MATCH (s:Entity)-[r:RELATED]->(t:Entity)
RETURN generation, s.id AS source, t.id AS target, r.description AS description, r.weight AS weight,
  r.chunkIds AS chunkIds
