// Projects the graph personalized PageRank walks (graph.ChunkRanker): every entity and chunk,
// RELATED between entities weighted by their weight (a missing or non-positive weight counts 1,
// as the embedded store's edgeWeight does) and HAS_ENTITY from chunks to entities weighted 1,
// all undirected. Nodes without relationships are kept (OPTIONAL MATCH, null target), so that a
// seeded chunk that names nothing keeps its start as in the embedded store; self-loops are left
// out, as the embedded store's graph never walks them. Rows come in id order so that GDS
// numbers the nodes alike whatever the database's history.
// @param graphName STRING
MATCH (source)
WHERE source:Entity OR source:Chunk
OPTIONAL MATCH (source)-[r:RELATED|HAS_ENTITY]->(target:Entity)
WHERE target <> source
WITH source, r, target
ORDER BY source.id, target.id, type(r)
WITH gds.graph.project(
  $graphName,
  source,
  target,
  {relationshipProperties: {weight: CASE WHEN type(r) = 'RELATED' AND r.weight > 0 THEN toFloat(r.weight) ELSE 1.0 END}},
  {undirectedRelationshipTypes: ['*']}
) AS g
RETURN g.nodeCount AS nodeCount, g.relationshipCount AS relationshipCount
