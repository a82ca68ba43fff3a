// Package cypher is strata's Neo4j backend: an implementation of graph.Store that keeps the
// knowledge graph in Neo4j (DESIGN §3) and runs WCC, Leiden and shortest paths with the Graph
// Data Science plugin.
//
// Every statement lives in its own file under queries/ (embedded with go:embed) and is run with
// parameters only; no Cypher is assembled from values at run time. Each file declares its
// parameters in "// @param name TYPE" header lines, which both the linter in lint/ (Neo4j's own
// parser, see lint/run.sh) and this package's tests check against the parameters actually sent.
//
// Writes go through one managed write transaction per graph.Batch, in UNWIND batches of
// Config.BatchSize rows; the driver retries the transaction on transient errors, which is safe
// because every statement is an idempotent MERGE. Schema (constraints, full-text and vector
// indexes) is created by Open, except the vector indexes, whose dimension is only known once the
// first embeddings arrive (or from the embedding.dims meta value).
//
// The GDS plugin is optional at Open: without it, reads, writes, searches and shortest paths
// (plain Cypher) work, and ComputeComponents and ComputeCommunities fail with a message saying
// that GDS is missing.
package cypher
