// Entity.degree = number of RELATED relationships, either direction.
MATCH (e:Entity)
SET e.degree = COUNT { (e)-[:RELATED]-() }
