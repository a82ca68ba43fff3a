// ARCH_RELATED between two communities of one layer whose members are linked, source < target.
// @param rows LIST<MAP>
UNWIND $rows AS row
MATCH (a:ArchCommunity {id: row.source})
MATCH (b:ArchCommunity {id: row.target})
MERGE (a)-[r:ARCH_RELATED]->(b)
SET r.weight = row.weight
