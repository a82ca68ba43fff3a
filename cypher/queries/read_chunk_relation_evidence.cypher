// The relation evidence of chunks, in merge order. A relation a chunk holds evidence of joins two
// entities the chunk mentions, which keeps the walk to the chunk's neighbourhood.
// @param ids LIST<STRING>
UNWIND $ids AS id
MATCH (c:Chunk {id: id})-[:HAS_ENTITY]->(s:Entity)-[r:RELATED]->(t:Entity)<-[:HAS_ENTITY]-(c)
WITH c, s, t, r, [i IN range(0, size(coalesce(r.evidenceChunkIds, [])) - 1) WHERE r.evidenceChunkIds[i] = c.id] AS at
UNWIND at AS i
RETURN {
  source: s.id, target: t.id, chunkId: c.id, description: r.evidenceDescriptions[i],
  weight: r.evidenceWeights[i], documentId: c.documentId, seq: c.seq
} AS evidence
ORDER BY s.id, t.id, c.documentId, c.seq, c.id
