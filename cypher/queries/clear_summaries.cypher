// Deletes every summary entity (layer >= 1) with all its relationships, before the hierarchical
// index is rebuilt. Returns how many were deleted.
MATCH (e:Entity:Summary)
DETACH DELETE e
RETURN count(*) AS deleted
