// Whether the GDS catalog holds the projection named $name.
// @param name STRING
RETURN gds.graph.exists($name) AS exists
