// Best k nodes of a full-text index. $query is built by the Go side from plain words with every
// Lucene operator escaped, so user text is never query syntax.
// @param index STRING
// @param query STRING
// @param k INTEGER
CALL db.index.fulltext.queryNodes($index, $query)
YIELD node, score
RETURN node.id AS id, score
ORDER BY score DESC, id
LIMIT $k
