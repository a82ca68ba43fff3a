// All communities of one level, or of every level when $level < 0; ordered by level, then
// community id.
// @param level INTEGER
MATCH (c:Community)
WHERE $level < 0 OR c.level = $level
RETURN c {
  .id, .level, .communityId, .title, .summary, .report, .rating, .size, .embedding,
  parentId: head(COLLECT { MATCH (c)-[:CHILD_OF]->(p:Community) RETURN p.id })
} AS community
ORDER BY c.level, c.communityId
