// The chunks of one document in Seq order.
// @param documentId STRING
MATCH (:Document {id: $documentId})<-[:PART_OF]-(c:Chunk)
RETURN c {.id, .documentId, .seq, .text, .tokens, .embedding, .firstPage, .lastPage} AS chunk
ORDER BY c.seq, c.id
