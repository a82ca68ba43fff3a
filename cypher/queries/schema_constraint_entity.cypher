// Makes Entity.id unique; MERGE on id relies on the backing index.
CREATE CONSTRAINT entity_id IF NOT EXISTS
FOR (n:Entity) REQUIRE n.id IS UNIQUE
