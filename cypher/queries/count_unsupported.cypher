// Layer-0 entities without a mention other than subject ones, and relations between layer-0
// entities without evidence from a chunk that exists (graph.EvidenceReader.Unsupported).
CALL () {
  MATCH (e:Entity)
  WHERE e.layer = 0 AND NOT EXISTS { (:Chunk)-[m:HAS_ENTITY]->(e) WHERE NOT coalesce(m.subject, false) }
  RETURN count(e) AS entities
}
CALL () {
  MATCH (s:Entity)-[r:RELATED]->(t:Entity)
  WHERE s.layer = 0 AND t.layer = 0
    AND NOT EXISTS { MATCH (c:Chunk) WHERE c.id IN coalesce(r.evidenceChunkIds, []) }
  RETURN count(r) AS relations
}
RETURN entities, relations
