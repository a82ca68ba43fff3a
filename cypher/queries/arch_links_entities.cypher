// The RELATED relations between layer-0 entities with embeddings, with the similarity of their
// ends on the (1 + cos) / 2 scale: the links of layer 0 of the attributed graph.
MATCH (a:Entity)-[r:RELATED]->(b:Entity)
WHERE a.layer = 0 AND b.layer = 0 AND a.embedding IS NOT NULL AND b.embedding IS NOT NULL
RETURN a.id AS source, b.id AS target, r.weight AS weight,
       vector.similarity.cosine(a.embedding, b.embedding) AS similarity
ORDER BY source, target
