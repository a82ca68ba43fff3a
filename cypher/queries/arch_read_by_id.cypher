// Attributed communities by id with their members (sorted ids), without embeddings.
// @param ids LIST<STRING>
MATCH (c:ArchCommunity)
WHERE c.id IN $ids
CALL (c) {
  OPTIONAL MATCH (m)-[:ARCH_MEMBER_OF]->(c)
  WITH m.id AS member
  ORDER BY member
  RETURN collect(member) AS members
}
RETURN c {.id, .layer, .title, .summary, members: members} AS community
