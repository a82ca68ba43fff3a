// IN_COMMUNITY from each entity to its community at one level (MERGE: see communities_create).
// @param rows LIST<MAP>
UNWIND $rows AS row
MATCH (e:Entity)
WHERE e.id = row.entityId
MATCH (c:Community)
WHERE c.id = row.community
MERGE (e)-[:IN_COMMUNITY]->(c)
