// Every community with its parent and the entities IN_COMMUNITY lists, without report
// properties: what UpdateCommunities matches a new hierarchy against.
MATCH (c:Community)
OPTIONAL MATCH (c)-[:CHILD_OF]->(p:Community)
RETURN c.id AS id, c.level AS level, c.communityId AS communityId, p.id AS parentId, c.size AS size,
  COLLECT { MATCH (e:Entity)-[:IN_COMMUNITY]->(c) RETURN e.id } AS members
