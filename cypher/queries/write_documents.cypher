// Upserts documents; properties are replaced, never merged (see graph.Batch). Chunks carry
// their document's title for the full-text index, so a new title is copied onto them.
// @param rows LIST<MAP>
UNWIND $rows AS row
MERGE (d:Document {id: row.id})
SET d.title = row.title,
    d.source = row.source,
    d.sha256 = row.sha256,
    d.metadata = row.metadata,
    d.ingestedAt = row.ingestedAt
WITH d
CALL (d) {
  MATCH (c:Chunk)-[:PART_OF]->(d)
  WHERE c.title IS NULL OR c.title <> d.title
  SET c.title = d.title
}
