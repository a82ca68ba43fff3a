// The number of RELATED relationships of every entity of one layer, counted now (what
// write_degree would store).
// @param layer INTEGER
MATCH (e:Entity)
WHERE e.layer = $layer
RETURN e.id AS id, COUNT { (e)-[:RELATED]-() } AS degree
