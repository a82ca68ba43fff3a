// The member entities of one community, ordered by id, without embeddings (graph.Members).
// Members, relations and children are three statements that stream their rows: the top
// community can hold most of the graph, which one collected row would have to fit in the
// server's transaction memory.
// @param id STRING
MATCH (e:Entity)-[:IN_COMMUNITY]->(:Community {id: $id})
RETURN e {.id, .name, .type, .description, .layer, .componentId, .degree} AS entity
ORDER BY e.id
