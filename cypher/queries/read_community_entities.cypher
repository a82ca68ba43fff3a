// The member entities of several communities in one statement, without embeddings, ordered by
// community then entity id (graph.Reader.CommunityEntities: no relations among them, which cost
// more to read than the members).
// @param ids LIST<STRING>
UNWIND $ids AS id
MATCH (e:Entity)-[:IN_COMMUNITY]->(c:Community {id: id})
RETURN c.id AS community, e {.id, .name, .type, .description, .layer, .componentId, .degree} AS entity
ORDER BY community, e.id
