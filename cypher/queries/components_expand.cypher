// One level of UpdateComponents' searches: per entity of $ids that exists, its stored component
// and degree, its RELATED relationships now (counted as write_degree.cypher counts them) and the
// entities they reach, either direction.
// @param ids LIST<STRING>
UNWIND $ids AS id
MATCH (e:Entity {id: id})
RETURN e.id AS id,
  coalesce(e.componentId, -1) AS componentId,
  coalesce(e.degree, 0) AS degree,
  COUNT { (e)-[:RELATED]-() } AS related,
  [(e)-[:RELATED]-(o:Entity) | o.id] AS neighbours
