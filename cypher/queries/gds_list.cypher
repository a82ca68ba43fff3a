// strata's entity projections of this database in the GDS catalog (names start with $prefix),
// with their relationship counts: the current one is reused, older generations are dropped.
// @param prefix STRING
CALL gds.graph.list()
YIELD graphName, relationshipCount
WHERE graphName STARTS WITH $prefix
RETURN graphName, relationshipCount
