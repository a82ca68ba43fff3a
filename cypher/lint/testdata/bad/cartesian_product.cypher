// Disconnected patterns in one MATCH (a cartesian product) must be reported.
// @param a STRING
// @param b STRING
MATCH (x:Entity {id: $a}), (y:Entity {id: $b})
RETURN x.id AS x, y.id AS y
