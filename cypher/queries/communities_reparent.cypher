// Sets the CHILD_OF of a community to the one named, replacing any other (UpdateCommunities: a
// kept community under a new parent, or a new community).
// @param rows LIST<MAP>
UNWIND $rows AS row
MATCH (child:Community)
WHERE child.id = row.child
OPTIONAL MATCH (child)-[old:CHILD_OF]->(other:Community)
WHERE other.id <> row.parent
DELETE old
WITH DISTINCT child, row
MATCH (parent:Community)
WHERE parent.id = row.parent
MERGE (child)-[:CHILD_OF]->(parent)
