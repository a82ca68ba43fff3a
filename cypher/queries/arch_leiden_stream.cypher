// Weighted Leiden over the attributed graph: its final partition (communityId), fixed
// randomSeed and one thread so that runs repeat. nodeId is the integer the node was projected
// as (arch_project_weighted).
// @param graphName STRING
// @param gamma FLOAT
// @param theta FLOAT
// @param tolerance FLOAT
// @param maxLevels INTEGER
// @param randomSeed INTEGER
CALL gds.leiden.stream($graphName, {
  relationshipWeightProperty: 'weight',
  gamma: $gamma,
  theta: $theta,
  tolerance: $tolerance,
  maxLevels: $maxLevels,
  randomSeed: $randomSeed,
  concurrency: 1
})
YIELD nodeId, communityId
RETURN nodeId, communityId
