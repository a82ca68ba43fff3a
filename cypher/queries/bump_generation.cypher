// Counts changes, in the transaction that makes them, under each of $keys:
// entity_graph.generation counts changes to the entity graph (entities, RELATED, SUMMARIZED_BY),
// chunks.generation writes and deletes of chunks, mentions.generation changes to HAS_ENTITY,
// communities.generation writes of Community nodes, documents.generation writes and deletes of
// documents (a resident reader's copies of them follow these: vectorcache.go, recordcache.go,
// mentions.go, communitycache.go).
// GDS projection names end with the entity graph's number, so a projection made before a change
// is recognisably stale and never used for paths. A new counter starts at the clock in
// microseconds, not at 0: a database whose nodes were deleted (StrataMeta with them) but whose
// GDS catalog was kept would otherwise count through the names of its old projections again
// and take one of them, whose node ids name deleted or reused nodes, for the current graph (the
// old counter would have needed a change per microsecond to reach the new one's start).
// @param keys LIST<STRING>
UNWIND $keys AS key
MERGE (m:StrataMeta {key: key})
SET m.value = toString(coalesce(toInteger(m.value), datetime().epochMillis * 1000) + 1)
