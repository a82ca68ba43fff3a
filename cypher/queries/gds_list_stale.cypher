// strata's short-lived projections of this database (names start with one of $prefixes) that
// are older than $maxAgeSeconds: a process killed between projecting and dropping one left it
// behind, and nothing else would ever free its memory.
// @param prefixes LIST<STRING>
// @param maxAgeSeconds INTEGER
CALL gds.graph.list()
YIELD graphName, creationTime
WHERE any(prefix IN $prefixes WHERE graphName STARTS WITH prefix)
  AND creationTime < datetime() - duration({seconds: $maxAgeSeconds})
RETURN graphName
ORDER BY graphName
