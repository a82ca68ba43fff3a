// Projects the entity graph like gds_project.cypher, privately, with each entity's stored
// community number at strata levels 0..9 (0 the coarsest) as node properties seed0..seed9, the
// seeds of UpdateCommunities' Leiden. An entity without a community at a level (a new one)
// leaves the property out, which GDS's seeding puts alone. GDS infers a property's type from
// its values and fails on a property no node has, so the levels from $levels on, never used,
// hold 0. Targets repeat their seeds: a node first seen as a target would otherwise have none.
// Rows come in a fixed order, as in gds_project.cypher, so that Leiden's result does not depend on
// the database's history.
// @param graphName STRING
// @param levels INTEGER
MATCH (source:Entity)
OPTIONAL MATCH (source)-[r:RELATED|SUMMARIZED_BY]->(target:Entity)
WITH source, r, target
ORDER BY source.id, target.id, type(r), r.weight
WITH source, r, target,
  [k IN range(0, 9) | coalesce(
    head([(source)-[:IN_COMMUNITY]->(c:Community) WHERE c.level = k | c.communityId]),
    CASE WHEN k >= $levels THEN 0 END)] AS s,
  [k IN range(0, 9) | coalesce(
    head([(target)-[:IN_COMMUNITY]->(c:Community) WHERE c.level = k | c.communityId]),
    CASE WHEN k >= $levels THEN 0 END)] AS t
WITH gds.graph.project(
  $graphName,
  source,
  target,
  {
    sourceNodeProperties: {seed0: s[0], seed1: s[1], seed2: s[2], seed3: s[3], seed4: s[4],
                           seed5: s[5], seed6: s[6], seed7: s[7], seed8: s[8], seed9: s[9]},
    targetNodeProperties: {seed0: t[0], seed1: t[1], seed2: t[2], seed3: t[3], seed4: t[4],
                           seed5: t[5], seed6: t[6], seed7: t[7], seed8: t[8], seed9: t[9]},
    relationshipProperties: {weight: coalesce(toFloat(r.weight), 1.0)}
  },
  {undirectedRelationshipTypes: ['*']}
) AS g
RETURN g.nodeCount AS nodeCount, g.relationshipCount AS relationshipCount
