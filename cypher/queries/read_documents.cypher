// Documents by id; the caller restores the order of $ids.
// @param ids LIST<STRING>
MATCH (d:Document)
WHERE d.id IN $ids
RETURN d {.id, .title, .source, .sha256, .metadata, .ingestedAt} AS document
