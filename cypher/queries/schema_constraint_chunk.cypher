// Makes Chunk.id unique; MERGE on id relies on the backing index.
CREATE CONSTRAINT chunk_id IF NOT EXISTS
FOR (n:Chunk) REQUIRE n.id IS UNIQUE
