// One shortest path (fewest hops: no weight property) per request with GDS Dijkstra on the
// entity projection that ComputeComponents/ComputeCommunities leave behind. The projection is
// undirected, so each hop is matched back to a RELATED or SUMMARIZED_BY relationship in either
// direction; when two exist between the same entities, RELATED wins, then the heavier one.
// @param graphName STRING
// @param requests LIST<MAP>
UNWIND $requests AS req
MATCH (a:Entity)
WHERE a.id = req.source
MATCH (b:Entity)
WHERE b.id = req.target AND b <> a
CALL gds.shortestPath.dijkstra.stream($graphName, {sourceNode: a, targetNode: b})
YIELD nodeIds
WITH req, gds.util.asNodes(nodeIds) AS path
CALL (path) {
  UNWIND range(0, size(path) - 2) AS i
  WITH i, path[i] AS x, path[i + 1] AS y
  CALL (x, y) {
    MATCH (x)-[r:RELATED|SUMMARIZED_BY]-(y)
    RETURN r
    ORDER BY type(r), r.weight DESC
    LIMIT 1
  }
  WITH i, r
  ORDER BY i
  RETURN collect({
    type: type(r),
    description: r.description,
    weight: r.weight
  }) AS steps
}
RETURN
  req.source AS source,
  req.target AS target,
  [n IN path | n.id] AS nodes,
  steps
