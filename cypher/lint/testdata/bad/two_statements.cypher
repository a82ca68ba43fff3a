// One statement per file.
MATCH (e:Entity) RETURN e.id AS id;
MATCH (c:Chunk) RETURN c.id AS id
