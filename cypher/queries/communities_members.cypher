// IN_COMMUNITY from each entity to its communities, one row an entity with the ids of its
// communities (of every level for ComputeCommunities): the entity is found once for all of
// them (MERGE: see communities_create).
// @param rows LIST<MAP>
UNWIND $rows AS row
MATCH (e:Entity)
WHERE e.id = row.entityId
UNWIND row.communities AS community
MATCH (c:Community)
WHERE c.id = community
MERGE (e)-[:IN_COMMUNITY]->(c)
