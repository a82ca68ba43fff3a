// One shortest path per request over RELATED and SUMMARIZED_BY, undirected, in plain Cypher:
// the fallback when the GDS projection is missing or stale. A variable-length bound cannot be a
// parameter, so the search is capped at 32 hops here and the Go side drops paths longer than the
// requested maximum. Requests whose entities are missing or unconnected yield no row.
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
