// The child communities of one community (one level finer), ordered by community id.
// @param id STRING
MATCH (k:Community)-[:CHILD_OF]->(c:Community {id: $id})
RETURN k {.id, .level, .communityId, .title, .summary, .report, .rating, .size, .embedding, parentId: c.id} AS community
ORDER BY k.communityId
