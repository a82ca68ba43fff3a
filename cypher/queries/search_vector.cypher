// k nearest nodes of a vector index. Lucene's HNSW search is approximate, and most so for small
// k, so the index is asked for $candidates >= k nodes and the best k of them are kept (see
// vectorCandidates). For cosine indexes Neo4j already scores (1 + cos) / 2, the scale graph.Hit
// documents. Ties are broken by id so that results are stable.
// @param index STRING
// @param k INTEGER
// @param candidates INTEGER
// @param vector LIST<FLOAT>
CALL db.index.vector.queryNodes($index, $candidates, $vector)
YIELD node, score
RETURN node.id AS id, score
ORDER BY score DESC, id
LIMIT $k
