// The member entities of one community (ordered by id), the RELATED relationships among them
// (ordered by key) and its child communities one level finer (ordered by community id).
// @param id STRING
MATCH (c:Community {id: $id})
RETURN
  COLLECT {
    MATCH (e:Entity)-[:IN_COMMUNITY]->(c)
    RETURN e {.id, .name, .type, .description, .layer, .embedding, .componentId, .degree}
    ORDER BY e.id
  } AS entities,
  COLLECT {
    MATCH (s:Entity)-[:IN_COMMUNITY]->(c)
    MATCH (s)-[r:RELATED]->(t:Entity)-[:IN_COMMUNITY]->(c)
    RETURN {source: s.id, target: t.id, description: r.description, weight: r.weight, chunkIds: r.chunkIds}
    ORDER BY s.id, t.id
  } AS relations,
  COLLECT {
    MATCH (k:Community)-[:CHILD_OF]->(c)
    RETURN k {.id, .level, .communityId, .title, .summary, .report, .rating, .size, .embedding, parentId: c.id}
    ORDER BY k.communityId
  } AS children
