// One shortest path per request over RELATED and SUMMARIZED_BY, undirected, in plain Cypher:
// the fallback when the GDS projection is missing or stale. A variable-length bound cannot be a
// parameter, so this statement stops at 4 hops, what bridge retrieval asks for, and an
// unconnected pair costs a 4-hop search, not a walk of its whole component;
// paths_cypher_long.cypher serves longer limits. Requests whose entities are missing or
// unconnected yield no row.
// @param requests LIST<MAP>
UNWIND $requests AS req
MATCH (a:Entity)
WHERE a.id = req.source
MATCH (b:Entity)
WHERE b.id = req.target AND b <> a
MATCH p = shortestPath((a)-[:RELATED|SUMMARIZED_BY*..4]-(b))
RETURN
  req.source AS source,
  req.target AS target,
  [n IN nodes(p) | n.id] AS nodes,
  [r IN relationships(p) | {
    type: type(r),
    description: r.description,
    weight: r.weight
  }] AS steps
