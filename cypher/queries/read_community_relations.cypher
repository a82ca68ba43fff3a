// The RELATED relationships among the members of one community, ordered by key.
// @param id STRING
MATCH (c:Community {id: $id})
MATCH (s:Entity)-[:IN_COMMUNITY]->(c)
MATCH (s)-[r:RELATED]->(t:Entity)-[:IN_COMMUNITY]->(c)
RETURN {source: s.id, target: t.id, description: r.description, weight: r.weight, chunkIds: r.chunkIds} AS relation
ORDER BY relation.source, relation.target
