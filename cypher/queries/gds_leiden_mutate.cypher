// Hierarchical Leiden over the weighted projection, with every intermediate level, written into
// the projection as the node property $property (a list of community ids, finest first; the Go
// side turns it into strata's levels, 0 = coarsest). One run gives both the levels
// (gds_leiden_levels.cypher reads them) and each level's modularity, finest first, which
// ComputeCommunities records for UpdateCommunities' drift bound: stream mode does not yield it,
// and stats mode would run Leiden a second time. Fixed randomSeed and concurrency 1 make runs
// reproducible (given the projection's node order: see gds_project.cypher).
// @param graphName STRING
// @param property STRING
// @param gamma FLOAT
// @param theta FLOAT
// @param tolerance FLOAT
// @param maxLevels INTEGER
// @param randomSeed INTEGER
CALL gds.leiden.mutate($graphName, {
  mutateProperty: $property,
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
