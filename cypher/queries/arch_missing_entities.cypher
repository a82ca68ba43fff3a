// The ids among $ids that are not layer-0 entities: members a layer-1 community cannot have.
// @param ids LIST<STRING>
UNWIND $ids AS id
OPTIONAL MATCH (e:Entity {id: id})
WITH id, e
WHERE e IS NULL OR e.layer <> 0
RETURN id
