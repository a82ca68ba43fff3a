// Upserts key/value pairs of Batch.Meta; an empty value removes the key.
// @param rows LIST<MAP>
UNWIND $rows AS row
MERGE (m:StrataMeta {key: row.key})
SET m.value = row.value
WITH m, row
WHERE row.value = ''
DELETE m
