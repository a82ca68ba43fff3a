// Removes every Community node with its IN_COMMUNITY and CHILD_OF relationships before
// ComputeCommunities writes the new hierarchy (in the same transaction).
MATCH (c:Community)
DETACH DELETE c
