// The requests whose ends are joined by a path of at most 4 hops over RELATED and SUMMARIZED_BY
// (either direction), with that length; the others yield no row. For neighbours (1 hop), whose
// only shortest path is the step between them, the path itself, with the step chosen as
// paths_gds chooses it (RELATED first, then the heavier one), so that they need no Dijkstra run.
// The bound is written here because a variable-length bound cannot be a parameter
// (shortPathHops in paths.go).
// @param requests LIST<MAP>
UNWIND $requests AS req
MATCH (a:Entity {id: req.source})
MATCH (b:Entity {id: req.target})
WHERE a <> b
MATCH p = shortestPath((a)-[:RELATED|SUMMARIZED_BY*..4]-(b))
WITH req, a, b, length(p) AS hops
CALL (a, b, hops) {
  OPTIONAL MATCH (a)-[r:RELATED|SUMMARIZED_BY]-(b)
  WHERE hops = 1
  RETURN r
  ORDER BY type(r), r.weight DESC
  LIMIT 1
}
RETURN
  req.source AS source,
  req.target AS target,
  hops,
  [a.id, b.id] AS nodes,
  CASE WHEN r IS NULL THEN [] ELSE [{type: type(r), description: r.description, weight: r.weight}] END AS steps
