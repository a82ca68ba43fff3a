// Whether the entity projection exists, to choose between GDS and plain-Cypher shortest paths.
// @param graphName STRING
CALL gds.graph.exists($graphName)
YIELD exists
RETURN exists
