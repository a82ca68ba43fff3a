// Ranks chunks by personalized PageRank on the projection $graphName (ppr_project.cypher). GDS
// 2.13's sourceNodes is a list of nodes, each starting at 1 - dampingFactor, without weights;
// the walk is linear in its start, so the weighted seeds are split into groups (one per bit of
// their integer shares, cypher/ppr.go's pprGroups), each group one gds.pageRank run, and a
// node's score is the sum over the groups of the group's weight times its score there. Scores are compared rounded to 9 decimals (graphalgo.RoundPPR), ties by chunk
// id, so that summation order cannot reorder chunks a graph's symmetry ties. Runs are
// single-threaded: a query's walk is small, and threads only add scheduling.
// @param graphName STRING
// @param groups LIST<MAP>
// @param damping FLOAT
// @param iterations INTEGER
// @param tolerance FLOAT
// @param k INTEGER
UNWIND $groups AS grp
CALL (grp) {
  MATCH (e:Entity)
  WHERE e.id IN grp.entities
  RETURN e AS n
  UNION
  MATCH (c:Chunk)
  WHERE c.id IN grp.chunks
  RETURN c AS n
}
WITH grp, collect(n) AS sources
WHERE size(sources) > 0
CALL gds.pageRank.stream($graphName, {
  sourceNodes: sources,
  dampingFactor: $damping,
  maxIterations: $iterations,
  tolerance: $tolerance,
  relationshipWeightProperty: 'weight',
  concurrency: 1,
  logProgress: false
})
YIELD nodeId, score
WITH nodeId, sum(grp.weight * score) AS score
WHERE round(score, 9) > 0
WITH gds.util.asNode(nodeId) AS n, score
WHERE n:Chunk
RETURN n.id AS id, score
ORDER BY round(score, 9) DESC, id
LIMIT $k
