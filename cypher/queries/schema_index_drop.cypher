// Drops an index so that it is created again with strata's current settings: a vector index
// that quantizes, or a full-text index over other properties. The indexed properties stay on
// the nodes and the new index is built from them.
// @param name STRING
DROP INDEX $name IF EXISTS
