// A misspelt property must be reported.
MATCH (e:Entity)
RETURN e.descripton AS description
