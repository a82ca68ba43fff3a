// The values written with Batch.Meta under $keys that are set, one row each.
// @param keys LIST<STRING>
UNWIND $keys AS key
MATCH (m:StrataMeta {key: key})
RETURN key, m.value AS value
