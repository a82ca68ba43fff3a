// A deprecated construct must be reported.
MATCH (e:Entity)
CALL {
  WITH e
  MATCH (e)-[:RELATED]-(m:Entity)
  RETURN count(m) AS n
}
RETURN e.id AS id, n
