// One page of the entities of a layer that have no embedding: at most $limit with ids after
// $after, ordered by id.
// @param layer INTEGER
// @param after STRING
// @param limit INTEGER
MATCH (e:Entity)
WHERE e.layer = $layer AND e.id > $after AND e.embedding IS NULL
RETURN e {.id, .name, .type, .description, .layer, .componentId, .degree} AS entity
ORDER BY e.id
LIMIT $limit
