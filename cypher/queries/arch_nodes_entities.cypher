// The ids of the layer-0 entities that have an embedding: the nodes of layer 0 of the
// attributed graph.
MATCH (n:Entity)
WHERE n.layer = 0 AND n.embedding IS NOT NULL
RETURN n.id AS id
ORDER BY id
