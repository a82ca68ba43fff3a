// Best nodes of a full-text index, best first. $query is built by the Go side from the user's
// words with every Lucene operator escaped, so user text is never query syntax. Lucene is asked
// for the top 2k+10 only ({limit}), but among equal scores it keeps the nodes it indexed first,
// while strata orders them by id: the window wider than k lets the Go side keep the k best in
// strata's order, and search again with a larger $k when the k-th score is tied up to the
// window's end (textWindow in textquery.go computes the same window).
// @param index STRING
// @param query STRING
// @param k INTEGER
CALL db.index.fulltext.queryNodes($index, $query, {limit: 2 * $k + 10})
YIELD node, score
RETURN node.id AS id, score
ORDER BY score DESC, id
