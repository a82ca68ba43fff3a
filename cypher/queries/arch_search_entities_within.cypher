// The k layer-0 entities among $ids nearest to $vector, scored exactly ((1 + cos) / 2, as the
// vector index scores): the step of a layered descent into a community's members.
// @param ids LIST<STRING>
// @param k INTEGER
// @param vector LIST<FLOAT>
UNWIND $ids AS id
MATCH (e:Entity {id: id})
WHERE e.layer = 0 AND e.embedding IS NOT NULL
WITH e.id AS id, vector.similarity.cosine(e.embedding, $vector) AS score
RETURN id, score
ORDER BY score DESC, id
LIMIT $k
