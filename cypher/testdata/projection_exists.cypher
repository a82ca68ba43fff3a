// Tests only: whether a projection is in the GDS catalog.
// @param graphName STRING
CALL gds.graph.exists($graphName)
YIELD exists
RETURN exists
