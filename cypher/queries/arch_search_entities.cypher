// The k layer-0 entities nearest to $vector through the entity vector index, which also holds
// the summary entities of the hierarchical index: $candidates >= k nodes are asked for (see
// search_vector) and the summaries dropped.
// @param k INTEGER
// @param candidates INTEGER
// @param vector LIST<FLOAT>
CALL db.index.vector.queryNodes('entity_embedding', $candidates, $vector)
YIELD node, score
WITH node, score
WHERE node.layer = 0
RETURN node.id AS id, score
ORDER BY score DESC, id
LIMIT $k
