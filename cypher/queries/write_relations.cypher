// Upserts RELATED relationships, stored from the smaller id to the larger (graph.RelationKey).
// The entities must exist (checked before by missing_entities.cypher). The evidence, what each
// chunk said about the relation, is three lists of one item per chunk (a relationship property
// cannot hold maps); it is replaced as a whole, like the other properties.
// @param rows LIST<MAP>
UNWIND $rows AS row
MATCH (s:Entity)
WHERE s.id = row.source
MATCH (t:Entity)
WHERE t.id = row.target
MERGE (s)-[r:RELATED]->(t)
SET r.description = row.description,
    r.weight = row.weight,
    r.chunkIds = row.chunkIds,
    r.evidenceChunkIds = row.evidenceChunkIds,
    r.evidenceDescriptions = row.evidenceDescriptions,
    r.evidenceWeights = row.evidenceWeights
