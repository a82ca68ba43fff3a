// Every community's member entities, by community then entity id, for the membership copy of a
// resident store (strata serve, communitycache.go), with the two generations it depends on,
// read in the same transaction so that the three agree: communities.generation (a new
// hierarchy or an update of it) and entity_graph.generation (an entity removed takes its
// memberships with it).
// @param communityKey STRING
// @param entityKey STRING
OPTIONAL MATCH (cm:StrataMeta {key: $communityKey})
OPTIONAL MATCH (em:StrataMeta {key: $entityKey})
WITH cm.value AS communityGeneration, em.value AS entityGeneration
MATCH (e:Entity)-[:IN_COMMUNITY]->(c:Community)
RETURN communityGeneration, entityGeneration, c.id AS community, e.id AS entity
ORDER BY community, entity
