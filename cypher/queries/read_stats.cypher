// Node counts per label and relationship counts per type (graph.Stats). Each count is answered
// from Neo4j's count store.
RETURN
  {
    Document: COUNT { (:Document) },
    Chunk: COUNT { (:Chunk) },
    Entity: COUNT { (:Entity) },
    Summary: COUNT { (:Summary) },
    Community: COUNT { (:Community) }
  } AS nodes,
  {
    PART_OF: COUNT { ()-[:PART_OF]->() },
    NEXT: COUNT { ()-[:NEXT]->() },
    HAS_ENTITY: COUNT { ()-[:HAS_ENTITY]->() },
    RELATED: COUNT { ()-[:RELATED]->() },
    SUMMARIZED_BY: COUNT { ()-[:SUMMARIZED_BY]->() },
    IN_COMMUNITY: COUNT { ()-[:IN_COMMUNITY]->() },
    CHILD_OF: COUNT { ()-[:CHILD_OF]->() }
  } AS relationships
