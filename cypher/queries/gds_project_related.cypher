// Projects the entities of every layer with their RELATED relationships only, undirected, for
// the components stage: SUMMARIZED_BY is left out, so that the summary hierarchy, whose top
// joins everything, does not make the whole graph one component; LeanRAG's inter-summary
// RELATED relationships join summaries as extracted ones join entities. Entities without
// relationships are kept (OPTIONAL MATCH, null target). Rows come in a fixed order, as in
// gds_project.cypher, so that component numbers do not depend on the database's history.
// @param graphName STRING
MATCH (source:Entity)
OPTIONAL MATCH (source)-[r:RELATED]->(target:Entity)
WITH source, target
ORDER BY source.id, target.id
WITH gds.graph.project($graphName, source, target, {}, {undirectedRelationshipTypes: ['*']}) AS g
RETURN g.nodeCount AS nodeCount, g.relationshipCount AS relationshipCount
