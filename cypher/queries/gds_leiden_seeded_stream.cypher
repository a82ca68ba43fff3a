// The communities of gds_leiden_seeded_stats.cypher's run, per entity: the seed's number for an
// entity whose community held, a number above every seed otherwise.
// @param graphName STRING
// @param seedProperty STRING
// @param gamma FLOAT
// @param theta FLOAT
// @param randomSeed INTEGER
CALL gds.leiden.stream($graphName, {
  relationshipWeightProperty: 'weight',
  seedProperty: $seedProperty,
  gamma: $gamma,
  theta: $theta,
  maxLevels: 1,
  randomSeed: $randomSeed,
  concurrency: 1
})
YIELD nodeId, communityId
RETURN gds.util.asNode(nodeId).id AS entityId, communityId
