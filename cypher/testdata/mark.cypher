// Contract test only: marks the database as the contract test's own.
// @param marker STRING
MERGE (m:StrataMeta {key: $marker})
SET m.value = 'graph.Store contract test database; wiped between tests'
