// Tests only: a short-lived projection as a killed ingest leaves it behind.
// @param graphName STRING
MATCH (e:Entity)
WITH gds.graph.project($graphName, e, null) AS g
RETURN g.graphName AS graphName
