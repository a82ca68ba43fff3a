// A procedure output that does not exist must be reported.
// @param graphName STRING
CALL gds.leiden.stream($graphName, {randomSeed: 42})
YIELD nodeId, communityIds
RETURN nodeId
