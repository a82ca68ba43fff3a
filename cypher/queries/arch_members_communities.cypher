// ARCH_MEMBER_OF from attributed communities to their community one layer up.
// @param rows LIST<MAP>
UNWIND $rows AS row
MATCH (m:ArchCommunity {id: row.child})
MATCH (c:ArchCommunity {id: row.parent})
MERGE (m)-[:ARCH_MEMBER_OF]->(c)
