// Tests only: whether the chunk vector index quantizes vectors.
SHOW VECTOR INDEXES
YIELD name, options
WHERE name = 'chunk_embedding'
RETURN options.indexConfig['vector.quantization.enabled'] AS quantized
