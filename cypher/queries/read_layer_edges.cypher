// The RELATED relationships between two entities of one layer, as key and weight, ordered by
// key: the layers stage counts them per pair of clusters (LeanRAG's aggregation). Relations are
// stored from the smaller id to the larger, so the direction gives the key.
// @param layer INTEGER
MATCH (a:Entity)-[r:RELATED]->(b:Entity)
WHERE a.layer = $layer AND b.layer = $layer
RETURN a.id AS source, b.id AS target, r.weight AS weight
ORDER BY source, target
