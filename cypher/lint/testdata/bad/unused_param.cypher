// A declared parameter that is never used must be reported.
// @param k INTEGER
MATCH (e:Entity)
RETURN e.id AS id
