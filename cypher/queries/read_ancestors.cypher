// The entities $ids, every entity above them over SUMMARIZED_BY (a variable-length walk up the
// hierarchy; the hierarchy has a few layers, so the walk is short), and the SUMMARIZED_BY and
// RELATED relationships among them, in one row. lca retrieval finds the seeds' lowest common
// ancestors in it. The caller orders the lists.
// @param ids LIST<STRING>
OPTIONAL MATCH (s:Entity)-[:SUMMARIZED_BY*0..]->(a:Entity)
WHERE s.id IN $ids
WITH collect(DISTINCT a) AS nodes
RETURN
  [n IN nodes | n {.id, .name, .type, .description, .layer, .componentId, .degree}] AS entities,
  COLLECT {
    UNWIND nodes AS m
    MATCH (m)-[r:SUMMARIZED_BY]->(p:Entity)
    WHERE p IN nodes
    RETURN {member: m.id, summary: p.id, description: r.description, weight: r.weight}
  } AS links,
  COLLECT {
    UNWIND nodes AS a
    MATCH (a)-[r:RELATED]->(b:Entity)
    WHERE b IN nodes
    RETURN {source: a.id, target: b.id, description: r.description, weight: r.weight, chunkIds: r.chunkIds}
  } AS relations
