// ARCH_MEMBER_OF from layer-0 entities to their layer-1 community.
// @param rows LIST<MAP>
UNWIND $rows AS row
MATCH (e:Entity {id: row.child})
MATCH (c:ArchCommunity {id: row.parent})
MERGE (e)-[:ARCH_MEMBER_OF]->(c)
