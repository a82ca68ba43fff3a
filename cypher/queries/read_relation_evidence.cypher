// The evidence of relations by key (source < target), one row per chunk that still exists, in
// merge order.
// @param keys LIST<MAP>
UNWIND $keys AS key
MATCH (s:Entity)-[r:RELATED]->(t:Entity)
WHERE s.id = key.source AND t.id = key.target
UNWIND range(0, size(coalesce(r.evidenceChunkIds, [])) - 1) AS i
MATCH (c:Chunk {id: r.evidenceChunkIds[i]})
RETURN {
  source: s.id, target: t.id, chunkId: c.id, description: r.evidenceDescriptions[i],
  weight: r.evidenceWeights[i], documentId: c.documentId, seq: c.seq
} AS evidence
ORDER BY s.id, t.id, c.documentId, c.seq, c.id
