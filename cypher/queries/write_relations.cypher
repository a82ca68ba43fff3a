// Upserts RELATED relationships, stored from the smaller id to the larger (graph.RelationKey).
// The entities must exist (checked before by missing_entities.cypher).
// @param rows LIST<MAP>
UNWIND $rows AS row
MATCH (s:Entity)
WHERE s.id = row.source
MATCH (t:Entity)
WHERE t.id = row.target
MERGE (s)-[r:RELATED]->(t)
SET r.description = row.description,
    r.weight = row.weight,
    r.chunkIds = row.chunkIds
