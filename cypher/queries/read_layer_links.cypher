// The SUMMARIZED_BY links from the entities of one layer to the summaries of the layer above,
// with their properties. The caller orders them in Go, as it does Ancestors' lists, so that both
// backends give the same order byte for byte.
// @param layer INTEGER
MATCH (m:Entity)-[r:SUMMARIZED_BY]->(s:Entity)
WHERE m.layer = $layer AND s.layer = $layer + 1
RETURN m.id AS member, s.id AS summary, r.description AS description, r.weight AS weight
