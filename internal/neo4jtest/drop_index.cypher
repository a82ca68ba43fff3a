// Tests only: drops one index (the vector indexes, so that a test may use another dimension).
// @param name STRING
DROP INDEX $name IF EXISTS
