// The modularity of each level of gds_leiden_stream.cypher's run (same configuration, so the
// same levels), finest first: ComputeCommunities records it for UpdateCommunities' drift bound.
// @param graphName STRING
// @param gamma FLOAT
// @param theta FLOAT
// @param tolerance FLOAT
// @param maxLevels INTEGER
// @param randomSeed INTEGER
CALL gds.leiden.stats($graphName, {
  relationshipWeightProperty: 'weight',
  gamma: $gamma,
  theta: $theta,
  tolerance: $tolerance,
  maxLevels: $maxLevels,
  randomSeed: $randomSeed,
  includeIntermediateCommunities: true,
  concurrency: 1
})
YIELD modularities
RETURN modularities
