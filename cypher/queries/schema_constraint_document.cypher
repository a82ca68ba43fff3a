// Makes Document.id unique; MERGE on id relies on the backing index.
CREATE CONSTRAINT document_id IF NOT EXISTS
FOR (n:Document) REQUIRE n.id IS UNIQUE
