// A parameter that the header does not declare must be reported.
MATCH (e:Entity {id: $id})
RETURN e.name AS name
