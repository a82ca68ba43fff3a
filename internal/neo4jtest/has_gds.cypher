// Tests only: whether the GDS library is installed.
SHOW PROCEDURES
YIELD name
WHERE name = 'gds.graph.list'
RETURN count(*) > 0 AS installed
