// Projects the attributed communities of one layer that have an embedding, as
// arch_project_entities does for layer 0.
// @param graphName STRING
// @param layer INTEGER
MATCH (n:ArchCommunity)
WHERE n.layer = $layer AND n.embedding IS NOT NULL
WITH gds.graph.project($graphName, n, null, {sourceNodeProperties: {embedding: n.embedding}, targetNodeProperties: null}) AS g
RETURN g.nodeCount AS nodeCount
