// A misspelt label must be reported.
MATCH (e:Entiy)
RETURN e.id AS id
