// The heaviest RELATED relationships among the members of one community, heaviest first, then
// by key: as many as the reader uses ($limit), since they grow with the square of the members.
// @param id STRING
// @param limit INTEGER
MATCH (c:Community {id: $id})
MATCH (s:Entity)-[:IN_COMMUNITY]->(c)
MATCH (s)-[r:RELATED]->(t:Entity)-[:IN_COMMUNITY]->(c)
RETURN {source: s.id, target: t.id, description: r.description, weight: r.weight, chunkIds: r.chunkIds} AS relation
ORDER BY relation.weight DESC, relation.source, relation.target
LIMIT $limit
