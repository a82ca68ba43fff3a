// Tests only: every community with its level, parent and members, in a fixed order.
MATCH (c:Community)
OPTIONAL MATCH (c)-[:CHILD_OF]->(parent:Community)
OPTIONAL MATCH (e:Entity)-[:IN_COMMUNITY]->(c)
WITH c, parent, e
ORDER BY e.id
RETURN c.id AS id, c.level AS level, parent.id AS parent, collect(e.id) AS members
ORDER BY id
