// How many RELATED relationships join the members of one community, and their total weight.
// @param id STRING
MATCH (c:Community {id: $id})
MATCH (s:Entity)-[:IN_COMMUNITY]->(c)
MATCH (s)-[r:RELATED]->(t:Entity)-[:IN_COMMUNITY]->(c)
RETURN count(r) AS count, sum(r.weight) AS weight
