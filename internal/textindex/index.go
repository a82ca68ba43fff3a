package textindex

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/stratarag/strata/internal/graph"
)

// Log is the natural logarithm the inverse document frequencies are computed with. FTS5's
// bm25() calls the C library's log(), which differs from math.Log in the last bit of some
// values: for FTS5's scores bit for bit, it is SQLite's ln().
type Log func(ctx context.Context, x float64) (float64, error)

// Index is a full-text index as bm25 sees it: per term, the rows holding it and how often;
// per row, its size in tokens (all columns) and its node id. It is safe for concurrent searches.
type Index struct {
	rows     int64   // FTS5's row count
	avgdl    float64 // average row size in tokens, as FTS5 computes it
	ids      []string
	size     []int32
	terms    map[string]int32
	postings [][]posting
	scratch  sync.Pool // *[]float64 of len(ids): per-row score accumulators, all zero

	idfMu sync.Mutex
	idfs  map[int32]float64 // by term, computed on first use
}

type posting struct {
	row  int32 // index into ids
	freq int32 // instances of the term in the row
}

// Builder builds an Index from what FTS5 holds: every row first, in order (AddRow), then every
// instance of a token in a row, ordered by term and then row (AddToken), as an fts5vocab table
// of detail "instance" lists them.
type Builder struct {
	ti      *Index
	current int32 // the term of the last token, -1 before the first
	curTerm string
	tokens  int64
}

// NewBuilder returns an empty Builder.
func NewBuilder() *Builder {
	return &Builder{ti: &Index{terms: map[string]int32{}}, current: -1}
}

// AddRow adds a row of node id and returns its number, which AddToken takes.
func (b *Builder) AddRow(id string) int32 {
	b.ti.ids = append(b.ti.ids, id)
	return int32(len(b.ti.ids) - 1)
}

// AddToken counts an instance of term in row. Once a token is added, no row may be.
func (b *Builder) AddToken(term []byte, row int32) {
	ti := b.ti
	if ti.size == nil {
		b.rowsDone()
	}
	ti.size[row]++
	b.tokens++
	if b.current < 0 || string(term) != b.curTerm {
		b.curTerm = string(term)
		t, ok := ti.terms[b.curTerm]
		if !ok {
			t = int32(len(ti.postings))
			ti.terms[b.curTerm] = t
			ti.postings = append(ti.postings, nil)
		}
		b.current = t
	}
	p := ti.postings[b.current]
	if n := len(p); n > 0 && p[n-1].row == row {
		p[n-1].freq++
	} else {
		ti.postings[b.current] = append(p, posting{row: row, freq: 1})
	}
}

// rowsDone sizes the per-row arrays once every row is added.
func (b *Builder) rowsDone() {
	b.ti.size = make([]int32, len(b.ti.ids))
	// Every row added is a row of the index, so FTS5's row count is theirs.
	b.ti.rows = int64(len(b.ti.ids))
}

// Index returns the index built; the Builder must not be used afterwards.
func (b *Builder) Index() *Index {
	ti := b.ti
	if ti.size == nil {
		b.rowsDone()
	}
	if ti.rows > 0 {
		ti.avgdl = float64(b.tokens) / float64(ti.rows)
	}
	// One array for all postings: appending left each list up to twice its length.
	total := 0
	for _, p := range ti.postings {
		total += len(p)
	}
	all := make([]posting, 0, total)
	for t, p := range ti.postings {
		all = append(all, p...)
		ti.postings[t] = all[len(all)-len(p) : len(all) : len(all)]
	}
	n := len(ti.ids)
	ti.scratch.New = func() any { s := make([]float64, n); return &s }
	return ti
}

// idf returns FTS5's inverse document frequency of term t, with ln the logarithm.
func (ti *Index) idf(ctx context.Context, ln Log, t int32) (float64, error) {
	ti.idfMu.Lock()
	defer ti.idfMu.Unlock()
	if idf, ok := ti.idfs[t]; ok {
		return idf, nil
	}
	nHit := int64(len(ti.postings[t]))
	idf, err := ln(ctx, (float64(ti.rows-nHit)+0.5)/(float64(nHit)+0.5))
	if err != nil {
		return 0, fmt.Errorf("idf: %w", err)
	}
	if idf <= 0 {
		idf = 1e-6
	}
	if ti.idfs == nil {
		ti.idfs = map[int32]float64{}
	}
	ti.idfs[t] = idf
	return idf, nil
}

// Search returns the k best rows for phrases of one term each, as FTS5's bm25() ranks them:
// bm25 scores (higher is better), ordered by score, then id (graph.CompareHits). phrases are the
// query's terms in the order of its match expression, a term twice when two words tokenize to it
// (bm25 then counts it twice, as FTS5 does). ln is the logarithm of the inverse document
// frequencies, called once per term of the index at most.
func (ti *Index) Search(ctx context.Context, ln Log, phrases []string, k int) ([]graph.Hit, error) {
	accp := ti.scratch.Get().(*[]float64)
	acc := *accp
	var touched []int32
	defer func() {
		for _, row := range touched {
			acc[row] = 0
		}
		ti.scratch.Put(accp)
	}()
	// Okapi BM25 parameters of FTS5's bm25() (fts5_aux.c), in variables: k1+1 must be rounded
	// as float64 arithmetic rounds it, as FTS5 computes it, not computed exactly as a constant.
	k1, b := 1.2, 0.75
	for _, term := range phrases {
		t, ok := ti.terms[term]
		if !ok {
			continue // no row holds it: it adds 0 to every score
		}
		idf, err := ti.idf(ctx, ln, t)
		if err != nil {
			return nil, err
		}
		p := ti.postings[t]
		// fts5Bm25Function's expression; the conversions round each product to float64, as
		// the C does, so that no multiply-add is fused.
		for _, e := range p {
			f, d := float64(e.freq), float64(ti.size[e.row])
			v := float64(idf * (float64(f*(k1+1)) / (f + float64(k1*(1-b+float64(b*d)/ti.avgdl)))))
			if acc[e.row] == 0 {
				touched = append(touched, e.row)
			}
			acc[e.row] = acc[e.row] + v
		}
	}
	hits := make([]graph.Hit, 0, min(k, len(touched)))
	for _, row := range touched {
		h := graph.Hit{ID: ti.ids[row], Score: acc[row]}
		switch {
		case len(hits) < k:
			hits = append(hits, h)
			if len(hits) == k {
				slices.SortFunc(hits, graph.CompareHits)
			}
		case graph.CompareHits(h, hits[k-1]) < 0: // better than the worst kept: goes in its place in order
			i, _ := slices.BinarySearchFunc(hits, h, graph.CompareHits)
			copy(hits[i+1:], hits[i:k-1])
			hits[i] = h
		}
	}
	if len(hits) < k {
		slices.SortFunc(hits, graph.CompareHits)
	}
	if len(hits) == 0 {
		return nil, nil // as FTS5's SQL returns no rows
	}
	return hits, nil
}

// Rows returns the number of rows of the index.
func (ti *Index) Rows() int { return int(ti.rows) }

// RowsWith returns the number of rows holding term.
func (ti *Index) RowsWith(term string) int {
	t, ok := ti.terms[term]
	if !ok {
		return 0
	}
	return len(ti.postings[t])
}
