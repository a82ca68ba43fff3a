// Entities by id without their embeddings; the caller restores the order of $ids.
// @param ids LIST<STRING>
MATCH (e:Entity)
WHERE e.id IN $ids
RETURN e {.id, .name, .type, .description, .layer, .componentId, .degree} AS entity
