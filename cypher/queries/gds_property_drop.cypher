// Removes a node property gds_leiden_mutate.cypher wrote from a projection, if both still exist
// (another process may have dropped the projection), so that the shared projection keeps only
// what was projected.
// @param graphName STRING
// @param property STRING
CALL gds.graph.exists($graphName)
YIELD exists
WITH exists
WHERE exists
CALL gds.graph.nodeProperties.drop($graphName, [$property], {failIfMissing: false})
YIELD propertiesRemoved
RETURN propertiesRemoved
