// Drops a projection if it still exists (failIfMissing = false): another process may have
// dropped it first.
// @param graphName STRING
CALL gds.graph.drop($graphName, false)
YIELD graphName
RETURN graphName
