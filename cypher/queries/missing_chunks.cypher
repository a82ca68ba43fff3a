// Returns the ids among $ids that no Chunk node has, so that a batch referring to them fails with
// a clear message instead of silently dropping rows.
// @param ids LIST<STRING>
UNWIND $ids AS id
WITH DISTINCT id
WHERE NOT EXISTS { MATCH (:Chunk {id: id}) }
RETURN id
ORDER BY id
