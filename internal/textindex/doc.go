// Package textindex is an in-memory copy of a full-text index that ranks like SQLite FTS5's
// bm25(): per term, the rows holding it and how often; per row, its size in tokens and its node
// id. Built from what FTS5 holds (Builder, from an fts5vocab table) and given SQLite's logarithm,
// it returns FTS5's hits and scores bit for bit, in FTS5's order of floating-point operations,
// without FTS5's lookup of every matching row's size.
package textindex
