// Links the chunks of each given document in Seq order (ties broken by id): (a)-[:NEXT]->(b).
// @param documentIds LIST<STRING>
UNWIND $documentIds AS documentId
MATCH (:Document {id: documentId})<-[:PART_OF]-(c:Chunk)
WITH documentId, c
ORDER BY c.seq, c.id
WITH documentId, collect(c) AS chunks
UNWIND range(0, size(chunks) - 2) AS i
WITH chunks[i] AS a, chunks[i + 1] AS b
MERGE (a)-[:NEXT]->(b)
