// Tests only: drops every in-memory GDS graph strata projected.
CALL gds.graph.list()
YIELD graphName
WHERE graphName STARTS WITH 'strata'
CALL gds.graph.drop(graphName, false)
YIELD graphName AS dropped
RETURN count(dropped) AS dropped
