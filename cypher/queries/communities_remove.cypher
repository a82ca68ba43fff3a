// Removes the communities UpdateCommunities does not keep, with their IN_COMMUNITY and CHILD_OF.
// @param rows LIST<MAP>
UNWIND $rows AS row
MATCH (c:Community)
WHERE c.id = row.id
DETACH DELETE c
