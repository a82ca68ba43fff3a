// Package embedded is strata's zero-setup graph store: the whole knowledge graph
// (docs/ARCHITECTURE.md#data-model) in one SQLite database (modernc.org/sqlite, pure Go) under a
// data directory.
//
// It implements graph.Store. Nodes and relationships are tables; the derived relationships
// PART_OF and NEXT are not stored but follow from Chunk.documentId and Chunk.seq, as in Neo4j
// where the backend maintains them from the same properties. Full-text indexes are FTS5 tables
// (BM25) kept in sync with their source tables by triggers, so they can never drift from the data
// they index. Vector indexes are brute-force cosine scans over vectors decoded once and cached in
// memory until a write touches them (internal/vectorindex, which also defines the vector files
// written beside the database); a resident store answers full-text searches from an in-memory
// copy of each FTS5 index (internal/textindex).
//
// One process writes at a time: Open takes an exclusive flock on <dir>/strata.lock and holds it
// until Close, so a second writer fails fast with graph.ErrLocked instead of waiting on SQLite's
// busy timeout. Readers (Options.ReadOnly) take no lock and see committed data only (WAL mode).
//
// A damaged database file is reported as ErrDamaged with what to do; open.go says when the
// integrity check runs.
package embedded
