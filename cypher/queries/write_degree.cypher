// Entity.degree = number of RELATED relationships, either direction, written where it changed
// (an incremental ingest changes few). Batched so that a large entity graph never sits in one
// transaction; runs in an auto-commit transaction.
MATCH (e:Entity)
WITH e, COUNT { (e)-[:RELATED]-() } AS degree
WHERE e.degree IS NULL OR e.degree <> degree
CALL (e, degree) {
  SET e.degree = degree
} IN TRANSACTIONS OF 5000 ROWS
