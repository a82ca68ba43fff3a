// Removes the attributed communities of layer $layer and above with their relationships
// (ARCH_MEMBER_OF, ARCH_RELATED). The hierarchy holds a few hundred nodes: one transaction.
// @param layer INTEGER
MATCH (c:ArchCommunity)
WHERE c.layer >= $layer
DETACH DELETE c
