// Shortest paths (fewest hops: no weight property) with GDS Dijkstra on the projection of the
// current entity graph (named $prefix + its generation, StrataMeta $key; a missing projection fails the
// statement and the caller falls back to plain Cypher), one call per source for all of its
// targets; paths_gds_near serves limits of at most 4 hops. The projection is undirected, so each
// hop is matched back to a RELATED or SUMMARIZED_BY relationship in either direction; when two
// exist between the same entities, RELATED wins, then the heavier one. Unreachable targets
// yield no row.
// Progress logging is off: a query's Dijkstra run is too short for progress lines in the
// server log to help anyone, and tracking them costs about 7 % of the call.
// @param prefix STRING
// @param key STRING
// @param requests LIST<MAP>
OPTIONAL MATCH (m:StrataMeta {key: $key})
WITH $prefix + coalesce(m.value, '0') AS graphName
UNWIND $requests AS req
MATCH (a:Entity {id: req.source})
CALL (a, req) {
  MATCH (b:Entity)
  WHERE b.id IN req.targets AND b <> a
  RETURN collect(b) AS targets
}
WITH graphName, req, a, targets
WHERE size(targets) > 0
CALL gds.shortestPath.dijkstra.stream(graphName, {sourceNode: a, targetNodes: targets, logProgress: false})
YIELD targetNode, nodeIds
WITH req, gds.util.asNode(targetNode).id AS target, gds.util.asNodes(nodeIds) AS path
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
  target,
  [n IN path | n.id] AS nodes,
  steps
