// Deletes documents with their chunks and all their relationships. Unknown ids are ignored.
// @param ids LIST<STRING>
UNWIND $ids AS id
MATCH (d:Document {id: id})
OPTIONAL MATCH (c:Chunk)-[:PART_OF]->(d)
DETACH DELETE c, d
