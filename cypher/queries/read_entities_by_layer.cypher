// All entities of one layer, ordered by id.
// @param layer INTEGER
MATCH (e:Entity)
WHERE e.layer = $layer
RETURN e {.id, .name, .type, .description, .layer, .embedding, .componentId, .degree} AS entity
ORDER BY e.id
