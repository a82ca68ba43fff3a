// A procedure that does not exist must be reported.
// @param graphName STRING
CALL gds.leiden.streamz($graphName, {})
YIELD nodeId
RETURN nodeId
