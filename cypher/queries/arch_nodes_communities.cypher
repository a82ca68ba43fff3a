// The ids of the attributed communities of one layer that have an embedding.
// @param layer INTEGER
MATCH (n:ArchCommunity)
WHERE n.layer = $layer AND n.embedding IS NOT NULL
RETURN n.id AS id
ORDER BY id
