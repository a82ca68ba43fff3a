// Copies each document's title onto its chunks where it differs (chunks written by an older
// strata have none), in batches so that a large store does not need one huge transaction.
MATCH (c:Chunk)-[:PART_OF]->(d:Document)
WHERE c.title IS NULL OR c.title <> d.title
CALL (c, d) {
  SET c.title = d.title
} IN TRANSACTIONS OF 10000 ROWS
