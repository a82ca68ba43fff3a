// Removes every Community node with its IN_COMMUNITY and CHILD_OF relationships before
// ComputeCommunities writes the new hierarchy. Batched so that a large hierarchy never sits in
// one transaction; runs in an auto-commit transaction.
MATCH (c:Community)
CALL (c) {
  DETACH DELETE c
} IN TRANSACTIONS OF 5000 ROWS
