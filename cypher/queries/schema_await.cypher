// Waits until every index is ONLINE, so that the first search after Open sees all data.
// @param timeoutSeconds INTEGER
CALL db.awaitIndexes($timeoutSeconds)
