// Upserts RELATED relationships, stored from the smaller id to the larger (graph.RelationKey).
// The entities must exist (checked before by missing_entities.cypher). The evidence, what each
// chunk said about the relation, is three lists of one item per chunk (a relationship property
// cannot hold maps); it is replaced as a whole, like the other properties, unless the row only
// adds to it (addEvidence): then the row's items replace those of the same chunks and the items
// of other chunks stay, in front.
// @param rows LIST<MAP>
UNWIND $rows AS row
MATCH (s:Entity)
WHERE s.id = row.source
MATCH (t:Entity)
WHERE t.id = row.target
MERGE (s)-[r:RELATED]->(t)
WITH r, row,
     CASE WHEN row.addEvidence THEN coalesce(r.evidenceChunkIds, []) ELSE [] END AS oldIds,
     CASE WHEN row.addEvidence THEN coalesce(r.evidenceDescriptions, []) ELSE [] END AS oldDescriptions,
     CASE WHEN row.addEvidence THEN coalesce(r.evidenceWeights, []) ELSE [] END AS oldWeights
WITH r, row, oldIds, oldDescriptions, oldWeights,
     [i IN range(0, size(oldIds) - 1) WHERE NOT oldIds[i] IN row.evidenceChunkIds] AS kept
SET r.description = row.description,
    r.weight = row.weight,
    r.chunkIds = row.chunkIds,
    r.evidenceChunkIds = [i IN kept | oldIds[i]] + row.evidenceChunkIds,
    r.evidenceDescriptions = [i IN kept | oldDescriptions[i]] + row.evidenceDescriptions,
    r.evidenceWeights = [i IN kept | oldWeights[i]] + row.evidenceWeights
