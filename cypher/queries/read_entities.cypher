// Entities by id; the caller restores the order of $ids.
// @param ids LIST<STRING>
MATCH (e:Entity)
WHERE e.id IN $ids
RETURN e {.id, .name, .type, .description, .layer, .embedding, .componentId, .degree} AS entity
