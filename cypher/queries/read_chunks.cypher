// Chunks by id; the caller restores the order of $ids.
// @param ids LIST<STRING>
MATCH (c:Chunk)
WHERE c.id IN $ids
RETURN c {.id, .documentId, .seq, .text, .tokens, .embedding, .firstPage, .lastPage} AS chunk
