// Every entity id in order; Leiden on a graph without relationships leaves each entity alone.
MATCH (e:Entity)
RETURN e.id AS id
ORDER BY e.id
