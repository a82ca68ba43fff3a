// Projects the hierarchical entity graph (all layers; RELATED and SUMMARIZED_BY) into the GDS
// catalog, undirected, with weight as a float property defaulting to 1.0 (Leiden needs an
// undirected graph and numeric weights on every relationship). The Cypher projection keeps
// entities without relationships (OPTIONAL MATCH, null target) and does not fail when one of
// the relationship types does not exist yet, which a native projection would.
//
// Rows come in the order of the entities' ids, then the relationships' ends, types and weights:
// GDS numbers nodes in the order it first sees them, and Leiden (and WCC's component numbers)
// follow that numbering, so the store's order (internal ids, reused after deletes) would make the
// same graph give other communities on a database with another history.
// @param graphName STRING
MATCH (source:Entity)
OPTIONAL MATCH (source)-[r:RELATED|SUMMARIZED_BY]->(target:Entity)
WITH source, r, target
ORDER BY source.id, target.id, type(r), r.weight
WITH gds.graph.project(
  $graphName,
  source,
  target,
  {relationshipProperties: {weight: coalesce(toFloat(r.weight), 1.0)}},
  {undirectedRelationshipTypes: ['*']}
) AS g
RETURN g.nodeCount AS nodeCount, g.relationshipCount AS relationshipCount
