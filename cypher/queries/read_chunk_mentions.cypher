// The mentions of chunks with their evidence, in merge order.
// @param ids LIST<STRING>
UNWIND $ids AS id
MATCH (c:Chunk {id: id})-[m:HAS_ENTITY]->(e:Entity)
RETURN {
  chunkId: c.id, entityId: e.id, name: coalesce(m.name, ''), type: coalesce(m.type, ''),
  description: coalesce(m.description, ''), subject: coalesce(m.subject, false),
  documentId: c.documentId, seq: c.seq
} AS mention
ORDER BY e.id, c.documentId, c.seq, c.id
