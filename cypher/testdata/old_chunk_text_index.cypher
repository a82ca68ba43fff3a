// Tests only: the chunk full-text index as earlier strata versions created it (text only).
CREATE FULLTEXT INDEX chunk_text
FOR (c:Chunk) ON EACH [c.text]
