// Projects the hierarchical entity graph (all layers; RELATED and SUMMARIZED_BY) into the GDS
// catalog, undirected, with weight as a float property defaulting to 1.0 (Leiden needs an
// undirected graph and numeric weights on every relationship). The Cypher projection keeps
// entities without relationships (OPTIONAL MATCH, null target) and does not fail when one of
// the relationship types does not exist yet, which a native projection would.
// @param graphName STRING
MATCH (source:Entity)
OPTIONAL MATCH (source)-[r:RELATED|SUMMARIZED_BY]->(target:Entity)
WITH gds.graph.project(
  $graphName,
  source,
  target,
  {relationshipProperties: {weight: coalesce(toFloat(r.weight), 1.0)}},
  {undirectedRelationshipTypes: ['*']}
) AS g
RETURN g.nodeCount AS nodeCount, g.relationshipCount AS relationshipCount
