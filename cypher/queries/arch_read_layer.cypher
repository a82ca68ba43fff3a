// The attributed communities of one layer with their members (sorted ids) and embeddings.
// @param layer INTEGER
MATCH (c:ArchCommunity)
WHERE c.layer = $layer
CALL (c) {
  OPTIONAL MATCH (m)-[:ARCH_MEMBER_OF]->(c)
  WITH m.id AS member
  ORDER BY member
  RETURN collect(member) AS members
}
RETURN c.id AS id, c.layer AS layer, c.title AS title, c.summary AS summary, c.embedding AS embedding, members
ORDER BY id
