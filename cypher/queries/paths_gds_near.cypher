// Shortest paths (fewest hops) of at most $maxHops (<= 4) hops, one row per request that has
// one, on the GDS projection of the current entity graph (named $prefix + its generation, StrataMeta $key; a
// missing projection fails the statement and the caller falls back to paths_cypher). Requests
// come one per source with all of its targets. A plain-Cypher search first tells how far each
// target is: neighbours get the step between them (RELATED first, then the heavier one, as
// paths_gds picks a hop), targets farther than $maxHops get no row, and Dijkstra runs once per
// source for the rest. Each Dijkstra run explores the graph until it has settled all of its
// targets, so leaving out the far ones saves most of its work; the path it finds to a target
// does not depend on the other targets. The 4 is written here because a variable-length bound
// cannot be a parameter (shortPathHops in paths.go).
// Progress logging is off: a query's Dijkstra run is too short for progress lines in the
// server log to help anyone, and tracking them costs about 7 % of the call.
// @param prefix STRING
// @param key STRING
// @param maxHops INTEGER
// @param requests LIST<MAP>
OPTIONAL MATCH (m:StrataMeta {key: $key})
WITH $prefix + coalesce(m.value, '0') AS graphName
UNWIND $requests AS req
MATCH (a:Entity {id: req.source})
CALL (a, req) {
  UNWIND req.targets AS targetId
  MATCH (b:Entity {id: targetId})
  WHERE b <> a
  MATCH p = shortestPath((a)-[:RELATED|SUMMARIZED_BY*..4]-(b))
  WITH b, length(p) AS hops
  WHERE hops <= $maxHops
  RETURN
    collect(CASE WHEN hops = 1 THEN b END) AS neighbours,
    collect(CASE WHEN hops > 1 THEN b END) AS far
}
CALL (graphName, a, neighbours, far) {
  UNWIND neighbours AS b
  CALL (a, b) {
    MATCH (a)-[r:RELATED|SUMMARIZED_BY]-(b)
    RETURN r
    ORDER BY type(r), r.weight DESC
    LIMIT 1
  }
  RETURN
    b.id AS target,
    [a.id, b.id] AS nodes,
    [{type: type(r), description: r.description, weight: r.weight}] AS steps
  UNION ALL
  WITH graphName, a, far
  WHERE size(far) > 0
  CALL gds.shortestPath.dijkstra.stream(graphName, {sourceNode: a, targetNodes: far, logProgress: false})
  YIELD targetNode, nodeIds
  WITH gds.util.asNode(targetNode).id AS target, gds.util.asNodes(nodeIds) AS path
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
  RETURN target, [n IN path | n.id] AS nodes, steps
}
RETURN req.source AS source, target, nodes, steps
