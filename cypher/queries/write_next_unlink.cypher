// Removes the NEXT chain of the given documents before write_next_link.cypher rebuilds it, so
// that a chunk that moved or changed Seq leaves no stale link behind.
// @param documentIds LIST<STRING>
UNWIND $documentIds AS documentId
MATCH (:Document {id: documentId})<-[:PART_OF]-(:Chunk)-[n:NEXT]->(:Chunk)
DELETE n
