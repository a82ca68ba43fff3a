// Drops a vector index so that it is created again with strata's current settings; the
// embeddings stay on the nodes and the new index is built from them.
// @param name STRING
DROP INDEX $name IF EXISTS
