package embedded

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/textindex"
)

// A Resident store answers TextSearch from a copy of each full-text index in memory: on the mix
// corpus (21 000 entities) the words of a question match up to 15 000 entity descriptions, and
// FTS5 computes bm25 for every match with a lookup of the row's size, the largest part of a
// served hi query's CPU. The copy holds
// what bm25 reads, taken from the index itself through fts5vocab (so its words are exactly the
// tokenizer's), and scores with FTS5's formula in FTS5's order of floating-point operations: the
// hits and their scores are those of the SQL, bit for bit (TestTextIndexMatchesFTS5). Each is
// built per generation of its rows (entity_embedding for entities; chunk_embedding, which
// document writes move too since a document's title is indexed with its chunks), in the
// background (textIndexCache; 1.3 s of CPU for entity_text on the mix corpus), and searches read
// FTS5 until it is ready.

// ftsIndex names what an in-memory copy of a full-text index is read from: the FTS5 table, its
// content table (whose rid is the FTS5 rowid) and the generation that counts writes to it.
type ftsIndex struct {
	fts, content, gen string
}

// ftsIndexOf returns the full-text index of a graph name.
func ftsIndexOf(index graph.TextIndex) (ftsIndex, bool) {
	switch index {
	case graph.EntityText:
		return ftsIndex{fts: "entity_text", content: "entities", gen: string(graph.EntityEmbedding)}, true
	case graph.ChunkText:
		return ftsIndex{fts: "chunk_text", content: "chunks", gen: string(graph.ChunkEmbedding)}, true
	}
	return ftsIndex{}, false
}

// ftsTokenize is the tokenizer of both full-text indexes (schema.go).
const ftsTokenize = "unicode61 remove_diacritics 2"

// textIndexCache keeps the in-memory copy of one full-text index of a Resident store between
// calls. It is (re)built in the background, never by a search: a search finding it missing or of
// an older generation answers from FTS5 and starts a load, at most one at a time and, after a
// load that took d, not before 10×d has passed since it started. A serve process beside an
// ingest, whose every batch moves the generations on, thus spends at most about a tenth of a core
// per index on loads and never makes a request wait for one.
type textIndexCache struct {
	mu      sync.Mutex
	ti      *textIndex
	loading bool
	next    time.Time // earliest start of the next load
	closed  bool      // the store is closing: no more loads
	wg      sync.WaitGroup
}

// close keeps new loads from starting and waits for the one running (its context, the store's
// background, is cancelled first by Close).
func (c *textIndexCache) close() {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	c.wg.Wait()
}

// textLoadSpacing is how many times its own duration passes between the starts of two loads.
const textLoadSpacing = 10

// textIndex is the in-memory copy of a full-text index (textindex.Index) with the generation of
// its rows it was read at.
type textIndex struct {
	*textindex.Index
	gen int64
}

// textCache returns the cache of index's in-memory copy.
func (s *Store) textCache(index graph.TextIndex) *textIndexCache {
	if index == graph.ChunkText {
		return &s.chunkTexts
	}
	return &s.entityTexts
}

// textIndex returns the in-memory copy of index when it is of tx's snapshot's generation;
// otherwise nil (the caller searches FTS5), having started a load when none runs and the last
// one is long enough ago.
func (s *Store) textIndex(ctx context.Context, tx *sql.Tx, index graph.TextIndex) (*textIndex, error) {
	fi, ok := ftsIndexOf(index)
	if !ok {
		return nil, nil
	}
	gen, err := generation(ctx, tx, fi.gen)
	if err != nil {
		return nil, err
	}
	c := s.textCache(index)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ti != nil && c.ti.gen == gen {
		return c.ti, nil
	}
	if c.loading || c.closed || time.Now().Before(c.next) {
		return nil, nil
	}
	c.loading = true
	c.wg.Add(1)
	go s.loadTextIndex(c, fi)
	return nil, nil
}

// loadTextIndex loads the in-memory copy of fi of the current snapshot into c, until the store
// closes. A failed load leaves c as it was: searches go on reading FTS5, which reports what is
// wrong with the store.
func (s *Store) loadTextIndex(c *textIndexCache, fi ftsIndex) {
	defer c.wg.Done()
	start := time.Now()
	var ti *textIndex
	err := s.read(s.background, "load the text index "+fi.fts, func(tx *sql.Tx) error {
		gen, err := generation(s.background, tx, fi.gen)
		if err != nil {
			return err
		}
		index, err := readTextIndex(s.background, tx, fi)
		if err != nil {
			return err
		}
		ti = &textIndex{Index: index, gen: gen}
		return nil
	})
	c.mu.Lock()
	defer c.mu.Unlock()
	if err == nil {
		c.ti = ti
	}
	c.loading = false
	c.next = start.Add(textLoadSpacing * time.Since(start))
}

// readTextIndex reads fi through an fts5vocab table of the loading connection, temporary and
// dropped when done (creating it writes nothing to the store, so a read-only store may). fi's
// names are those of ftsIndexes, never a caller's.
func readTextIndex(ctx context.Context, tx *sql.Tx, fi ftsIndex) (ti *textindex.Index, err error) {
	b := textindex.NewBuilder()
	number := map[int64]int32{}
	rows, err := tx.QueryContext(ctx, `SELECT rid, id FROM `+fi.content+` ORDER BY rid`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var rid int64
		var id string
		if err := rows.Scan(&rid, &id); err != nil {
			return nil, err
		}
		// Every content row is a row of the index (the triggers of schema.go).
		number[rid] = b.AddRow(id)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows.Close()

	vocab := "temp.strata_vocab_" + fi.fts
	if _, err := tx.ExecContext(ctx, `CREATE VIRTUAL TABLE `+vocab+` USING fts5vocab(main, `+fi.fts+`, instance)`); err != nil {
		return nil, err
	}
	defer func() {
		if _, derr := tx.ExecContext(context.WithoutCancel(ctx), `DROP TABLE `+vocab); derr != nil && err == nil {
			err = derr
		}
	}()
	// One row per token of every row, ordered by term, then row, as the builder takes them.
	rows, err = tx.QueryContext(ctx, `SELECT term, doc FROM `+vocab)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var term sql.RawBytes
	for rows.Next() {
		var rid int64
		if err := rows.Scan(&term, &rid); err != nil {
			return nil, err
		}
		row, ok := number[rid]
		if !ok {
			continue // no content row: the SQL joins hits with the content table
		}
		b.AddToken(term, row)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return b.Index(), nil
}

// sqliteLn is SQLite's ln() in the snapshot of q, the logarithm FTS5's bm25() computes its
// inverse document frequencies with (textindex.Log).
func sqliteLn(q rowQuerier) textindex.Log {
	return func(ctx context.Context, x float64) (float64, error) {
		var v float64
		err := q.QueryRowContext(ctx, `SELECT ln(?)`, x).Scan(&v)
		return v, err
	}
}

// errNotOneToken marks a query word the tokenizer splits into several tokens or none: FTS5 then
// matches a phrase, which the in-memory index does not hold positions for.
var errNotOneToken = errors.New("a query word is not one token")

// queryTerms returns the terms of the phrases of ftsMatch(query): a word of ASCII letters and
// digits is its own term (unicode61 only folds the case of those); other words are tokenized by
// SQLite (tokens), as the index tokenized its text.
func queryTerms(ctx context.Context, query string, tokens func(context.Context, string) ([]string, error)) ([]string, error) {
	words := matchWords(query)
	terms := make([]string, 0, len(words))
	for _, w := range words {
		if isASCII(w) {
			terms = append(terms, w)
			continue
		}
		toks, err := tokens(ctx, w)
		if err != nil {
			return nil, err
		}
		if len(toks) != 1 {
			return nil, errNotOneToken
		}
		terms = append(terms, toks[0])
	}
	return terms, nil
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// ftsTokens returns the tokens the full-text indexes make of word, from SQLite's own tokenizer:
// an FTS5 table of the index's settings in a private in-memory database, written and read in a
// transaction that is rolled back, so nothing outlives the call.
func ftsTokens(ctx context.Context, word string) (toks []string, err error) {
	db, err := sql.Open("sqlite", "file::memory:")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	for _, q := range []string{
		`CREATE VIRTUAL TABLE t USING fts5(x, tokenize='` + ftsTokenize + `')`,
		`CREATE VIRTUAL TABLE v USING fts5vocab(t, instance)`,
	} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return nil, fmt.Errorf("tokenize %q: %w", word, err)
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO t (rowid, x) VALUES (1, ?)`, word); err != nil {
		return nil, fmt.Errorf("tokenize %q: %w", word, err)
	}
	rows, err := tx.QueryContext(ctx, `SELECT term FROM v ORDER BY offset`)
	if err != nil {
		return nil, fmt.Errorf("tokenize %q: %w", word, err)
	}
	defer rows.Close()
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			return nil, err
		}
		toks = append(toks, t)
	}
	return toks, rows.Err()
}
