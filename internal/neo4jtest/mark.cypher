// Tests only: marks the database as the tests' own, so that the next test may wipe it.
// @param marker STRING
MERGE (m:StrataMeta {key: $marker})
SET m.value = 'strata test database; wiped before every test'
