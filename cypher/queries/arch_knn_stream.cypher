// The topK nearest neighbours of every projected node by cosine similarity of embeddings
// (gds.knn; sampleRate 1 and deltaThreshold 0 let it converge as far as it can, a fixed
// randomSeed with one thread makes it repeat). The similarity is returned on Neo4j's
// (1 + cos) / 2 scale, which graph.ArchParams.Cutoff and graph.ArchEdgeWeight use, rather than
// GDS's own score; pairs below $cutoff are dropped after the topK are chosen, as the embedded
// store's exact search does.
// @param graphName STRING
// @param topK INTEGER
// @param cutoff FLOAT
// @param randomSeed INTEGER
CALL gds.knn.stream($graphName, {
  nodeProperties: {embedding: 'COSINE'},
  topK: $topK,
  sampleRate: 1.0,
  deltaThreshold: 0.0,
  randomSeed: $randomSeed,
  concurrency: 1
})
YIELD node1, node2
WITH gds.util.asNode(node1) AS a, gds.util.asNode(node2) AS b
WITH a.id AS source, b.id AS target, vector.similarity.cosine(a.embedding, b.embedding) AS similarity
WHERE similarity >= $cutoff
RETURN source, target, similarity
ORDER BY source, target
