// The generation counters under $keys that are set, one row each, as read_meta_keys reads them,
// and on every row whether the GDS catalog holds the projection of the current entity graph
// ($prefix + the counter under $entityGraphKey, '0' when unset; gds_project.cypher). A resident
// store reads both once per query in this one round trip: its copy of the projection
// (residentpaths.go) answers path requests only while the projection exists.
// @param keys LIST<STRING>
// @param entityGraphKey STRING
// @param prefix STRING
OPTIONAL MATCH (g:StrataMeta {key: $entityGraphKey})
WITH gds.graph.exists($prefix + coalesce(g.value, '0')) AS projection
UNWIND $keys AS key
OPTIONAL MATCH (m:StrataMeta {key: key})
RETURN key, m.value AS value, projection
