// The neighbourhood of the seed entities in one round trip (GraphRAG local search):
// - entities: the seeds that exist (the caller restores the order of $ids);
// - chunks mentioning seeds, ranked by the number of seeds they mention, then id;
// - communities (every level) containing seeds, ranked by seed hits, then rating, then id, with
//   the ids of the seeds they contain; with $distinctCommunities only the best ranked of those
//   holding the same seeds;
// - inside relations (both ends seeds) and outside relations (one end a seed), ranked by
//   weight descending, then key.
// @param ids LIST<STRING>
// @param topChunks INTEGER
// @param topCommunities INTEGER
// @param distinctCommunities BOOLEAN
// @param topInsideRels INTEGER
// @param topOutsideRels INTEGER
OPTIONAL MATCH (seed:Entity)
WHERE seed.id IN $ids
WITH collect(seed) AS seeds
RETURN
  [s IN seeds | s {
    .id, .name, .type, .description, .layer, .componentId, .degree, .embedding
  }] AS entities,
  COLLECT {
    UNWIND seeds AS s
    MATCH (c:Chunk)-[:HAS_ENTITY]->(s)
    WITH c, count(DISTINCT s) AS hits
    ORDER BY hits DESC, c.id
    LIMIT $topChunks
    RETURN c {
      .id, .documentId, .seq, .text, .tokens, .firstPage, .lastPage, .embedding,
      score: hits
    }
  } AS chunks,
  COLLECT {
    UNWIND seeds AS s
    MATCH (s)-[:IN_COMMUNITY]->(c:Community)
    WITH c, count(DISTINCT s) AS hits, collect(DISTINCT s.id) AS seedIds
    ORDER BY hits DESC, coalesce(c.rating, 0.0) DESC, c.id
    WITH CASE WHEN $distinctCommunities THEN COLLECT { UNWIND seedIds AS x RETURN x ORDER BY x } ELSE [c.id] END AS key,
      collect({c: c, hits: hits, seedIds: seedIds}) AS same
    WITH head(same) AS best
    WITH best.c AS c, best.hits AS hits, best.seedIds AS seedIds
    ORDER BY hits DESC, coalesce(c.rating, 0.0) DESC, c.id
    LIMIT $topCommunities
    RETURN c {
      .id, .level, .communityId, .title, .summary, .report, .rating, .size, .embedding,
      parentId: head(COLLECT { MATCH (c)-[:CHILD_OF]->(p:Community) RETURN p.id }),
      score: hits,
      seeds: seedIds
    }
  } AS communities,
  COLLECT {
    UNWIND seeds AS s
    MATCH (s)-[r:RELATED]->(t:Entity)
    WHERE t.id IN $ids
    WITH s, r, t
    ORDER BY r.weight DESC, s.id, t.id
    LIMIT $topInsideRels
    RETURN {source: s.id, target: t.id, description: r.description, weight: r.weight, chunkIds: r.chunkIds}
  } AS insideRelations,
  COLLECT {
    UNWIND seeds AS s
    MATCH (s)-[r:RELATED]-(t:Entity)
    WHERE NOT t.id IN $ids
    WITH startNode(r) AS a, r, endNode(r) AS b
    ORDER BY r.weight DESC, a.id, b.id
    LIMIT $topOutsideRels
    RETURN {source: a.id, target: b.id, description: r.description, weight: r.weight, chunkIds: r.chunkIds}
  } AS outsideRelations
