// What UpdateComponents needs of every entity, in one scan of the label: the largest component
// id (new components are numbered above it) and the number of components before the update
// (entities without one, new since, left out).
MATCH (e:Entity)
RETURN coalesce(max(e.componentId), -1) AS maxId,
  count(DISTINCT CASE WHEN e.componentId >= 0 THEN e.componentId END) AS components
