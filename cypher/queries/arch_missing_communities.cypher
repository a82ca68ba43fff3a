// The ids among $ids that are not attributed communities of layer $layer.
// @param ids LIST<STRING>
// @param layer INTEGER
UNWIND $ids AS id
OPTIONAL MATCH (c:ArchCommunity {id: id})
WITH id, c
WHERE c IS NULL OR c.layer <> $layer
RETURN id
