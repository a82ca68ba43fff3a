// Communities by id, with the id of the coarser community they are CHILD_OF; the caller restores
// the order of $ids.
// @param ids LIST<STRING>
MATCH (c:Community)
WHERE c.id IN $ids
RETURN c {
  .id, .level, .communityId, .title, .summary, .report, .rating, .size, .embedding,
  parentId: head(COLLECT { MATCH (c)-[:CHILD_OF]->(p:Community) RETURN p.id })
} AS community
