// CHILD_OF from each community to the community one level coarser that contains it (MERGE: see
// communities_create).
// @param rows LIST<MAP>
UNWIND $rows AS row
MATCH (child:Community)
WHERE child.id = row.child
MATCH (parent:Community)
WHERE parent.id = row.parent
MERGE (child)-[:CHILD_OF]->(parent)
