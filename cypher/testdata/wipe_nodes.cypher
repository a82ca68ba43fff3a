// Contract test only: empties the test database between subtests.
MATCH (n)
DETACH DELETE n
