// The ARCH_RELATED links among the attributed communities of one layer.
// @param layer INTEGER
MATCH (a:ArchCommunity)-[r:ARCH_RELATED]->(b:ArchCommunity)
WHERE a.layer = $layer
RETURN a.id AS source, b.id AS target, r.weight AS weight
ORDER BY source, target
