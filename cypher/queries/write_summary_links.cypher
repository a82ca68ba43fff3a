// Upserts SUMMARIZED_BY relationships from an entity of layer i to its summary of layer i+1.
// @param rows LIST<MAP>
UNWIND $rows AS row
MATCH (m:Entity)
WHERE m.id = row.member
MATCH (s:Entity)
WHERE s.id = row.summary
MERGE (m)-[r:SUMMARIZED_BY]->(s)
SET r.description = row.description,
    r.weight = row.weight
