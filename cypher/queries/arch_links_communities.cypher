// The ARCH_RELATED links among the attributed communities of one layer, with the similarity of
// their ends as arch_links_entities gives it for layer 0.
// @param layer INTEGER
MATCH (a:ArchCommunity)-[r:ARCH_RELATED]->(b:ArchCommunity)
WHERE a.layer = $layer AND b.layer = $layer AND a.embedding IS NOT NULL AND b.embedding IS NOT NULL
RETURN a.id AS source, b.id AS target, r.weight AS weight,
       vector.similarity.cosine(a.embedding, b.embedding) AS similarity
ORDER BY source, target
