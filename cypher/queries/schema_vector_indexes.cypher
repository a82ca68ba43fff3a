// Lists strata's vector indexes with their dimension, to check embeddings against it.
SHOW VECTOR INDEXES
YIELD name, options
WHERE name IN ['chunk_embedding', 'entity_embedding', 'community_embedding']
RETURN name, options.indexConfig['vector.dimensions'] AS dimensions
