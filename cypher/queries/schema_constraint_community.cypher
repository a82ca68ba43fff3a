// Makes Community.id unique; MERGE on id relies on the backing index.
CREATE CONSTRAINT community_id IF NOT EXISTS
FOR (n:Community) REQUIRE n.id IS UNIQUE
