// Vector index behind VectorSearch(chunk_embedding). Cosine scores come back as (1+cos)/2.
// The dimension comes from the first embeddings written (or the embedding.dimensions meta value).
// @param dimensions INTEGER
CREATE VECTOR INDEX chunk_embedding IF NOT EXISTS
FOR (n:Chunk) ON (n.embedding)
OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}}
