// The k attributed communities of one layer nearest to $vector, among $ids when it is not null,
// scored exactly ((1 + cos) / 2). A layer holds at most a few hundred communities, so a scan
// over the layer index needs no vector index.
// @param layer INTEGER
// @param ids LIST<STRING>
// @param k INTEGER
// @param vector LIST<FLOAT>
MATCH (c:ArchCommunity)
WHERE c.layer = $layer AND c.embedding IS NOT NULL AND ($ids IS NULL OR c.id IN $ids)
WITH c.id AS id, vector.similarity.cosine(c.embedding, $vector) AS score
RETURN id, score
ORDER BY score DESC, id
LIMIT $k
