// One level of Leiden (local moving, no aggregation) started from the stored communities of one
// level ($seedProperty of gds_project_seeded.cypher): its modularity, and whether it stopped at
// once. GDS 2.13 fails with a NullPointerException in stream, mutate and write when a seeded
// run makes no move in its first local moving phase (its result is then the seeds themselves);
// ranLevels 1 with didConverge says so, and the caller then takes the seeds without streaming.
// @param graphName STRING
// @param seedProperty STRING
// @param gamma FLOAT
// @param theta FLOAT
// @param randomSeed INTEGER
CALL gds.leiden.stats($graphName, {
  relationshipWeightProperty: 'weight',
  seedProperty: $seedProperty,
  gamma: $gamma,
  theta: $theta,
  maxLevels: 1,
  randomSeed: $randomSeed,
  concurrency: 1
})
YIELD ranLevels, didConverge, modularity
RETURN ranLevels, didConverge, modularity
