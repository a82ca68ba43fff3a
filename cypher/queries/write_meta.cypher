// Upserts key/value pairs of Batch.Meta.
// @param rows LIST<MAP>
UNWIND $rows AS row
MERGE (m:StrataMeta {key: row.key})
SET m.value = row.value
