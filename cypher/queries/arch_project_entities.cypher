// Projects the layer-0 entities that have an embedding, without relationships, with the
// embedding as a node property: the graph gds.knn finds each entity's nearest neighbours on.
// @param graphName STRING
MATCH (n:Entity)
WHERE n.layer = 0 AND n.embedding IS NOT NULL
WITH gds.graph.project($graphName, n, null, {sourceNodeProperties: {embedding: n.embedding}, targetNodeProperties: null}) AS g
RETURN g.nodeCount AS nodeCount
