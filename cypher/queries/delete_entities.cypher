// Deletes entities with every relationship they have. Unknown ids are ignored.
// @param ids LIST<STRING>
UNWIND $ids AS id
MATCH (e:Entity {id: id})
DETACH DELETE e
