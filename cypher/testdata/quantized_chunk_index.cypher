// Tests only: the chunk vector index as earlier strata versions created it, with Neo4j's default
// quantization, to check that Open rebuilds it exact.
CREATE VECTOR INDEX chunk_embedding
FOR (n:Chunk) ON (n.embedding)
OPTIONS {indexConfig: {`vector.dimensions`: 3, `vector.similarity_function`: 'cosine', `vector.quantization.enabled`: true}}
