// Sets the component and degree of entities (UpdateComponents).
// @param rows LIST<MAP>
UNWIND $rows AS row
MATCH (e:Entity {id: row.id})
SET e.componentId = row.componentId, e.degree = row.degree
