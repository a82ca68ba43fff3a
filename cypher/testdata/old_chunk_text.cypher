// Tests only: the chunk state an earlier strata left: a full-text index over the text alone and
// chunks without a title, to check that Open copies titles and rebuilds the index.
MATCH (c:Chunk)
REMOVE c.title
