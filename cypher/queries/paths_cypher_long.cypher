// paths_cypher.cypher for callers that accept paths longer than 4 hops: the search is capped at
// 32 hops (a variable-length bound cannot be a parameter) and the Go side drops paths longer
// than the requested maximum.
// @param requests LIST<MAP>
UNWIND $requests AS req
MATCH (a:Entity)
WHERE a.id = req.source
MATCH (b:Entity)
WHERE b.id = req.target AND b <> a
MATCH p = shortestPath((a)-[:RELATED|SUMMARIZED_BY*..32]-(b))
RETURN
  req.source AS source,
  req.target AS target,
  [n IN nodes(p) | n.id] AS nodes,
  [r IN relationships(p) | {
    type: type(r),
    description: r.description,
    weight: r.weight
  }] AS steps
