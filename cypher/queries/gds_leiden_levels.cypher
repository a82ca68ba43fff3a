// The communities gds_leiden_mutate.cypher wrote into the projection, per entity: its community
// ids, finest first (null entityId: an entity deleted since the projection was made).
// @param graphName STRING
// @param property STRING
CALL gds.graph.nodeProperty.stream($graphName, $property)
YIELD nodeId, propertyValue
RETURN gds.util.asNode(nodeId).id AS entityId, propertyValue AS levels
