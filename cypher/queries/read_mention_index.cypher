// Every chunk with its document, position and the entities it mentions, for the in-memory
// mention index of a resident store (strata serve, mentions.go), with the mentions generation
// it belongs to, read in the same transaction so that the two agree.
// @param key STRING
OPTIONAL MATCH (m:StrataMeta {key: $key})
WITH m.value AS generation
MATCH (c:Chunk)
RETURN
  generation,
  c.id AS id,
  c.documentId AS documentId,
  c.seq AS seq,
  [(c)-[:HAS_ENTITY]->(e:Entity) | e.id] AS entities
ORDER BY id
