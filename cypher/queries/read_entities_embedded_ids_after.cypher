// One page of the ids of the entities of a layer that have an embedding: at most $limit ids
// after $after, in order. The embeddings stay on the server: the passes that need the members
// of a layer, not their vectors, read a tenth of the bytes.
// @param layer INTEGER
// @param after STRING
// @param limit INTEGER
MATCH (e:Entity)
WHERE e.layer = $layer AND e.id > $after AND e.embedding IS NOT NULL
RETURN e.id AS id
ORDER BY e.id
LIMIT $limit
