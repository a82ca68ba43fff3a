// Every entity embedding, for the in-memory copy of the entity vector index that a resident
// store (strata serve) searches exactly (vectorcache.go), with the entity graph generation it
// belongs to (bump_generation.cypher: every write of an entity bumps it), read in the same
// transaction so that the two agree.
// @param key STRING
OPTIONAL MATCH (m:StrataMeta {key: $key})
WITH m.value AS generation
MATCH (e:Entity)
WHERE e.embedding IS NOT NULL
RETURN generation, e.id AS id, e.embedding AS embedding
