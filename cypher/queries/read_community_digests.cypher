// The digests of several communities (graph.CommunityDigester), one row per community of $ids
// that exists, with its index in $ids: its number of member entities, its $top members of
// highest degree (then lowest id), and over the RELATED relationships among its members their
// number, their total weight and the $limit heaviest (then by key) with both ends. The weight is
// summed with reduce over the weights in key order, left to right as the embedded store sums
// them, so that the two agree bit for bit (sum() does not say in which order it adds). Rows
// hold only what a digest names, whatever the size of the community.
// @param ids LIST<STRING>
// @param top INTEGER
// @param limit INTEGER
UNWIND range(0, size($ids) - 1) AS i
WITH i, $ids[i] AS id
MATCH (c:Community {id: id})
CALL (c) {
  MATCH (e:Entity)-[:IN_COMMUNITY]->(c)
  RETURN count(e) AS members
}
CALL (c) {
  MATCH (e:Entity)-[:IN_COMMUNITY]->(c)
  WITH e
  ORDER BY coalesce(e.degree, 0) DESC, e.id
  LIMIT $top
  RETURN collect(e {.id, .name, .type, .description, .layer, .componentId, .degree}) AS entities
}
CALL (c) {
  MATCH (s:Entity)-[:IN_COMMUNITY]->(c)
  MATCH (s)-[r:RELATED]->(t:Entity)-[:IN_COMMUNITY]->(c)
  WITH r, s.id AS source, t.id AS target
  ORDER BY source, target
  WITH count(r) AS count, collect(toFloat(r.weight)) AS weights, collect(r) AS rels
  CALL (rels) {
    UNWIND rels AS r
    WITH r, startNode(r) AS s, endNode(r) AS t
    ORDER BY r.weight DESC, s.id, t.id
    LIMIT $limit
    RETURN collect({
      source: s.id, target: t.id, description: r.description, weight: r.weight, chunkIds: r.chunkIds,
      sourceEntity: s {.id, .name, .type, .description, .layer, .componentId, .degree},
      targetEntity: t {.id, .name, .type, .description, .layer, .componentId, .degree}
    }) AS relations
  }
  RETURN count, reduce(w = 0.0, x IN weights | w + x) AS weight, relations
}
RETURN i, members, entities, count, weight, relations
