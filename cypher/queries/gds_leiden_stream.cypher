// Hierarchical Leiden over the weighted projection, with every intermediate level. GDS lists
// intermediateCommunityIds finest first; the Go side turns that into strata's levels (0 =
// coarsest). Fixed randomSeed and concurrency 1 make runs reproducible.
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
  includeIntermediateCommunities: true,
  concurrency: 1
})
YIELD nodeId, communityId, intermediateCommunityIds
RETURN gds.util.asNode(nodeId).id AS entityId, communityId, intermediateCommunityIds
