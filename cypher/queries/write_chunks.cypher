// Upserts chunks and their PART_OF relationship. A chunk whose document changed loses its old
// PART_OF; the ids of the documents it left are returned so that their NEXT chains are rebuilt.
// The documents must exist (checked before by missing_documents.cypher). Embeddings are stored
// as float32 arrays (setNodeVectorProperty), half the size of the doubles a plain SET writes.
// firstPage and lastPage are null, so absent, for a chunk of a document without pages.
// @param rows LIST<MAP>
UNWIND $rows AS row
MATCH (d:Document {id: row.documentId})
MERGE (c:Chunk {id: row.id})
WITH c, d, row, c.documentId AS previous
SET c.documentId = row.documentId,
    c.seq = row.seq,
    c.text = row.text,
    c.tokens = row.tokens,
    c.firstPage = row.firstPage,
    c.lastPage = row.lastPage,
    c.title = d.title
MERGE (c)-[:PART_OF]->(d)
WITH c, d, row, previous
CALL (c, row) {
  WITH c
  WHERE row.embedding IS NOT NULL
  CALL db.create.setNodeVectorProperty(c, 'embedding', row.embedding)
}
CALL (c, row) {
  WITH c
  WHERE row.embedding IS NULL
  REMOVE c.embedding
}
WITH c, d, previous
CALL (c, d) {
  MATCH (c)-[stale:PART_OF]->(other:Document)
  WHERE other <> d
  DELETE stale
}
WITH previous
WHERE previous IS NOT NULL
RETURN collect(DISTINCT previous) AS previousDocumentIds
