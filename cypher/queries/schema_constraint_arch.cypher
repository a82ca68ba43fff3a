// Makes ArchCommunity.id unique (the attributed-community hierarchy, graph.ArchIndex); MATCH on
// id relies on the backing index.
CREATE CONSTRAINT arch_community_id IF NOT EXISTS
FOR (n:ArchCommunity) REQUIRE n.id IS UNIQUE
