// k nearest nodes of a vector index. For cosine indexes Neo4j already scores (1 + cos) / 2,
// the scale graph.Hit documents. Ties are broken by id so that results are stable.
// @param index STRING
// @param k INTEGER
// @param vector LIST<FLOAT>
CALL db.index.vector.queryNodes($index, $k, $vector)
YIELD node, score
RETURN node.id AS id, score
ORDER BY score DESC, id
