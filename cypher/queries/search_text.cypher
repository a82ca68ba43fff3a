// Best k nodes of a full-text index. $query is built by the Go side from the user's words with
// every Lucene operator escaped, so user text is never query syntax. The limit is passed to the
// index so that Lucene collects only the top k.
// @param index STRING
// @param query STRING
// @param k INTEGER
CALL db.index.fulltext.queryNodes($index, $query, {limit: $k})
YIELD node, score
RETURN node.id AS id, score
ORDER BY score DESC, id
