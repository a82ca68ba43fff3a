// Package cypher is strata's Neo4j backend: an implementation of graph.Store that keeps the
// knowledge graph (docs/ARCHITECTURE.md#data-model) in Neo4j and runs WCC, Leiden and shortest
// paths with the Graph Data Science plugin.
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
// Statements that must not hold a whole graph in one transaction (degrees, replacing the
// community hierarchy) run as CALL { … } IN TRANSACTIONS in auto-commit transactions, or in one
// write transaction per batch.
//
// The GDS plugin is optional at Open: without it, reads, writes, searches and shortest paths
// (plain Cypher) work, and ComputeComponents and ComputeCommunities fail with a message saying
// that GDS is missing. With it, the algorithms and Dijkstra run on an in-memory projection named
// after the entity graph's generation (see projection in gds.go), which says whether the
// projection still matches the stored graph.
//
// Tested against Neo4j 5.26.24 with GDS 2.13.9 (docker/local starts that server; make test runs
// every Neo4j test against it).
package cypher
