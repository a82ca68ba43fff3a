// Upserts documents; properties are replaced, never merged (see graph.Batch).
// @param rows LIST<MAP>
UNWIND $rows AS row
MERGE (d:Document {id: row.id})
SET d.title = row.title,
    d.source = row.source,
    d.sha256 = row.sha256,
    d.metadata = row.metadata,
    d.ingestedAt = row.ingestedAt
