// Entity.degree = number of RELATED relationships, either direction. Batched so that a large
// entity graph never sits in one transaction; runs in an auto-commit transaction.
MATCH (e:Entity)
CALL (e) {
  SET e.degree = COUNT { (e)-[:RELATED]-() }
} IN TRANSACTIONS OF 5000 ROWS
