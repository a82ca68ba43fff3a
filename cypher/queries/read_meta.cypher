// One value written with Batch.Meta.
// @param key STRING
MATCH (m:StrataMeta {key: $key})
RETURN m.value AS value
