// Projects the weighted attributed graph (graph.ArchWeights) Leiden runs on, undirected. Nodes
// are integers (their index in the Go side's node list), so the projection needs no lookup and
// works for entities and communities alike; nodes without edges are not projected (the Go side
// gives each a community of its own).
// @param graphName STRING
// @param edges LIST<MAP>
UNWIND $edges AS e
WITH gds.graph.project(
  $graphName,
  e.source,
  e.target,
  {relationshipProperties: {weight: e.weight}},
  {undirectedRelationshipTypes: ['*']}
) AS g
RETURN g.nodeCount AS nodeCount
