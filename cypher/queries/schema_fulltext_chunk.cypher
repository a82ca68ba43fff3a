// Full-text index behind TextSearch(chunk_text): a chunk's document title (copied onto the
// chunk) and its text. The title is often the only place a question's key phrase appears.
// Analyzer: Neo4j's default, standard-no-stop-words (Lucene StandardTokenizer, lower case, no
// stop words, no stemming); the embedded store's FTS5 unicode61 differs in folding diacritics.
CREATE FULLTEXT INDEX chunk_text IF NOT EXISTS
FOR (c:Chunk) ON EACH [c.title, c.text]
