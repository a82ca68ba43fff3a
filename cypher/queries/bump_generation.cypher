// Counts changes to the entity graph (entities, RELATED, SUMMARIZED_BY), in the transaction that
// makes them. GDS projection names end with this number, so a projection made before a change
// is recognisably stale and never used for paths.
// @param key STRING
MERGE (m:StrataMeta {key: $key})
SET m.value = toString(coalesce(toInteger(m.value), 0) + 1)
