// Vector index behind VectorSearch(community_embedding). Cosine scores come back as (1+cos)/2.
// Quantization (on by default since 5.23) is off: with it, scores are off by up to 0.05 and
// even the nearest neighbour can be missed, which reorders strata's rankings.
// The dimension comes from the first embeddings written (or the embedding.dimensions meta value).
// @param dimensions INTEGER
CREATE VECTOR INDEX community_embedding IF NOT EXISTS
FOR (n:Community) ON (n.embedding)
OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine', `vector.quantization.enabled`: false}}
