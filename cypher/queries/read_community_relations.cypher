// The RELATED relationships among the members of one community in one walk of the join: how
// many there are and their total weight, and the heaviest of them, heaviest first, then by key
// ($limit of them, as many as the reader uses: they grow with the square of the members). The
// walk collects references to the relationships only; their properties are read for the sort.
// @param id STRING
// @param limit INTEGER
MATCH (c:Community {id: $id})
MATCH (s:Entity)-[:IN_COMMUNITY]->(c)
MATCH (s)-[r:RELATED]->(t:Entity)-[:IN_COMMUNITY]->(c)
WITH count(r) AS count, sum(r.weight) AS weight, collect(r) AS rels
CALL (rels) {
  UNWIND rels AS r
  WITH r, startNode(r) AS s, endNode(r) AS t
  ORDER BY r.weight DESC, s.id, t.id
  LIMIT $limit
  RETURN collect({source: s.id, target: t.id, description: r.description, weight: r.weight, chunkIds: r.chunkIds}) AS relations
}
RETURN count, weight, relations
