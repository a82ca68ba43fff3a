// The properties the chunk_text index covers; an index made by an older strata covers only
// text and is rebuilt.
SHOW FULLTEXT INDEXES
YIELD name, properties
WHERE name = 'chunk_text'
RETURN properties
