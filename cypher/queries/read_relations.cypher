// RELATED relationships by key (source < target); the caller restores the order of $keys.
// @param keys LIST<MAP>
UNWIND $keys AS key
MATCH (s:Entity)-[r:RELATED]->(t:Entity)
WHERE s.id = key.source AND t.id = key.target
RETURN {source: s.id, target: t.id, description: r.description, weight: r.weight, chunkIds: r.chunkIds} AS relation
