// Lists strata's vector indexes with their dimension, to check embeddings against it, and
// whether they quantize vectors (indexes made before strata turned quantization off).
SHOW VECTOR INDEXES
YIELD name, options
WHERE name IN ['chunk_embedding', 'entity_embedding', 'community_embedding']
RETURN name,
       options.indexConfig['vector.dimensions'] AS dimensions,
       coalesce(options.indexConfig['vector.quantization.enabled'], false) AS quantized
