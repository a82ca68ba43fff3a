// Tests only: empties the test database, in batches so that a large leftover graph fits the heap.
// Runs in an auto-commit transaction (CALL IN TRANSACTIONS needs one).
MATCH (n)
CALL (n) {
  DETACH DELETE n
} IN TRANSACTIONS OF 10000 ROWS
