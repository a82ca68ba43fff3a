// Every document, ordered by id.
MATCH (d:Document)
RETURN d {.id, .title, .source, .sha256, .metadata, .ingestedAt} AS document
ORDER BY d.id
