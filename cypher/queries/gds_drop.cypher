// Drops the entity projection if it exists (failIfMissing = false), so every algorithm run starts
// from a fresh projection and re-runs are idempotent.
// @param graphName STRING
CALL gds.graph.drop($graphName, false)
YIELD graphName
RETURN graphName
