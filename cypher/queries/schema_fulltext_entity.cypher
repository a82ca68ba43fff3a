// Full-text index behind TextSearch(entity_text).
CREATE FULLTEXT INDEX entity_text IF NOT EXISTS
FOR (e:Entity) ON EACH [e.name, e.description]
