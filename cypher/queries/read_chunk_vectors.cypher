// Every chunk embedding, for the in-memory copy of the chunk vector index that a resident store
// (strata serve) searches exactly (vectorcache.go), with the chunk generation it belongs to
// (every Apply that writes or deletes chunks bumps it), read in the same transaction so that the
// two agree.
// @param key STRING
OPTIONAL MATCH (m:StrataMeta {key: $key})
WITH m.value AS generation
MATCH (c:Chunk)
WHERE c.embedding IS NOT NULL
RETURN generation, c.id AS id, c.embedding AS embedding
