package embedded

import (
	"container/heap"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/stratarag/strata/internal/graph"
)

// vectorTable returns the table holding the embeddings of a vector index.
func vectorTable(index graph.VectorIndex) (table string, ok bool) {
	switch index {
	case graph.ChunkEmbedding:
		return "chunks", true
	case graph.EntityEmbedding:
		return "entities", true
	case graph.CommunityEmbedding:
		return "communities", true
	}
	return "", false
}

// vectorSet is every embedding of one index, decoded and L2-normalized so that a cosine is a dot
// product. Zero vectors are left out: their cosine is undefined, and Neo4j's cosine vector
// indexes do not index them either.
type vectorSet struct {
	gen  int64 // generation the set was loaded at
	dim  int   // 0 when the index holds no vectors
	ids  []string
	vecs []float32 // len(ids)*dim, row-major
	// fromFile is true when the set was read from the index's vector file rather than SQLite.
	fromFile bool
	// mapping is the vector file mapped into memory that vecs points into, or nil.
	mapping []byte
	// half is vecs in IEEE half precision, or nil: a resident store keeps it for large sets,
	// whose scan is bound by memory bandwidth (vectorhalf.go).
	half []uint16
}

// vectorCache keeps one vectorSet per index until a write changes its generation.
type vectorCache struct {
	mu   sync.Mutex
	sets map[graph.VectorIndex]*vectorSet
	// mapped lists every file mapping a set was read from, current or not: a search may still
	// read a set its index has moved past, so they are unmapped only when the store closes.
	mapped [][]byte
}

// unmapAll unmaps the vector files mapped by this store; no set may be used afterwards.
func (c *vectorCache) unmapAll() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	var errs []error
	for _, m := range c.mapped {
		errs = append(errs, unmapFile(m))
	}
	c.mapped, c.sets = nil, nil
	return errors.Join(errs...)
}

// VectorSearch returns the k nodes of the index whose embeddings are most similar to vec by
// cosine, scored (1+cos)/2 and ordered by score descending, then id.
func (s *Store) VectorSearch(ctx context.Context, index graph.VectorIndex, vec []float32, k int) ([]graph.Hit, error) {
	what := fmt.Sprintf("vector search %s", index)
	table, ok := vectorTable(index)
	if !ok {
		return nil, fmt.Errorf("%s: no such vector index", what)
	}
	if err := ctxErr(ctx, what); err != nil {
		return nil, err
	}
	set, err := s.vectorSet(ctx, index, table)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if set.dim == 0 || k <= 0 {
		return nil, nil
	}
	if len(vec) != set.dim {
		return nil, fmt.Errorf("%s: query vector has %d dimensions, the index has %d", what, len(vec), set.dim)
	}
	q := normalized(vec)
	if q == nil {
		return nil, fmt.Errorf("%s: query vector is zero or not finite", what)
	}
	return set.search(q, k), nil
}

// vectorSet returns the cached vectors of index, reloading them when their generation moved on.
func (s *Store) vectorSet(ctx context.Context, index graph.VectorIndex, table string) (*vectorSet, error) {
	s.vectors.mu.Lock()
	defer s.vectors.mu.Unlock()
	// Fast path: one statement outside a transaction. A current cache is consistent with the
	// generation it was loaded at, whatever else happened since.
	cached := s.vectors.sets[index]
	if cached != nil {
		gen, err := generation(ctx, s.db, string(index))
		if err != nil {
			return nil, err
		}
		if cached.gen == gen {
			return cached, nil
		}
	}
	var out *vectorSet
	err := s.read(ctx, "load vectors", func(tx *sql.Tx) error {
		// Reading the generation and the vectors in one snapshot keeps them consistent; a vector
		// file is used only when it carries this snapshot's generation and tag.
		st, err := readVectorFileState(ctx, tx, index)
		if err != nil {
			return err
		}
		if cached != nil && cached.gen == st.gen {
			out = cached
			return nil
		}
		set, ferr := s.loadVectorFile(index, st)
		if ferr != nil {
			// Missing, stale or damaged: SQLite has the same vectors, only slower to decode.
			if set, err = loadVectors(ctx, tx, table); err != nil {
				return err
			}
			set.gen = st.gen
		}
		if s.resident {
			set = set.withHalf()
		}
		if s.vectors.sets == nil {
			s.vectors.sets = map[graph.VectorIndex]*vectorSet{}
		}
		if set.mapping != nil {
			s.vectors.mapped = append(s.vectors.mapped, set.mapping)
		}
		s.vectors.sets[index] = set
		out = set
		return nil
	})
	return out, err
}

// loadVectors reads and normalizes every embedding of a table (eachVector).
func loadVectors(ctx context.Context, tx *sql.Tx, table string) (*vectorSet, error) {
	set := &vectorSet{}
	var err error
	set.dim, err = eachVector(ctx, tx, table, func(id string, v []float32) error {
		set.ids = append(set.ids, id)
		set.vecs = append(set.vecs, v...)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return set, nil
}

// eachVector calls fn with every embedding of a vector table in id order, normalized; empty and
// zero embeddings are left out. It returns the embeddings' dimension (zero ones count). Mixed
// dimensions mean the store was filled by different embedding models; searching it would compare
// meaningless numbers, so they are an error.
func eachVector(ctx context.Context, tx *sql.Tx, table string, fn func(id string, v []float32) error) (dim int, err error) {
	// table comes from vectorTable, never from the caller.
	rows, err := tx.QueryContext(ctx, `SELECT id, embedding FROM `+table+` WHERE embedding IS NOT NULL ORDER BY id`)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var blob []byte
		if err := rows.Scan(&id, &blob); err != nil {
			return 0, err
		}
		v, err := decodeVector(blob)
		if err != nil {
			return 0, fmt.Errorf("%s %s: %w", table, id, err)
		}
		if len(v) == 0 {
			continue
		}
		if dim == 0 {
			dim = len(v)
		} else if len(v) != dim {
			return 0, fmt.Errorf("%s %s: embedding has %d dimensions, others have %d", table, id, len(v), dim)
		}
		if v = normalized(v); v == nil {
			continue
		}
		if err := fn(id, v); err != nil {
			return 0, err
		}
	}
	return dim, rows.Err()
}

// normalized returns v scaled to unit length, or nil for a zero (or non-finite) vector.
func normalized(v []float32) []float32 {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	norm := math.Sqrt(sum)
	if norm == 0 || math.IsInf(norm, 0) || math.IsNaN(norm) {
		return nil
	}
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(float64(x) / norm)
	}
	return out
}

// parallelSearchMACs is the size (vectors × dimensions) from which search splits the scan over
// the CPUs: 2 M multiply-adds take about 2 ms, far more than starting a goroutine.
const parallelSearchMACs = 2 << 20

// search returns the k best vectors for q. Exact search is one pass over every vector: 6 ms for
// 20 k × 384 on one core, 70 ms for 200 k (BenchmarkExactSearch), so large sets are split into
// one part per CPU, whose top k are merged. The ranking is a total order (score, then id), so the
// result is the same however the scan is split.
func (set *vectorSet) search(q []float32, k int) []graph.Hit {
	n := len(set.ids)
	parts := min(runtime.GOMAXPROCS(0), n*set.dim/parallelSearchMACs)
	if parts <= 1 {
		return set.searchRange(q, k, 0, n)
	}
	found := make([][]graph.Hit, parts)
	var wg sync.WaitGroup
	for p := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			found[p] = set.searchRange(q, k, p*n/parts, (p+1)*n/parts)
		}()
	}
	wg.Wait()
	all := slices.Concat(found...)
	slices.SortFunc(all, hitOrder)
	return all[:min(k, len(all))]
}

// searchRange scans the vectors of rows [from, to) and keeps the k best in a min-heap. Where the
// CPU has AVX2, four rows at a time go through dot4AVX2, which gives the same scores as dot, bit
// for bit, five to ten times faster. A set with a half-precision copy is scanned through it
// first (prescanRange), with the same result.
func (set *vectorSet) searchRange(q []float32, k, from, to int) []graph.Hit {
	if set.half != nil && len(q) == set.dim {
		return set.prescanRange(q, k, from, to)
	}
	best := newBestHits(k, to-from)
	dim := set.dim
	i := from
	if hasDot4 && dim%8 == 0 && len(q) == dim {
		var lanes [32]float32
		for ; i+4 <= to; i += 4 {
			dot4AVX2(&q[0], &set.vecs[i*dim], dim, &lanes)
			for r := range 4 {
				best.consider(set.ids[i+r], lanesDot(lanes[8*r:8*r+8]))
			}
		}
	}
	for ; i < to; i++ {
		best.consider(set.ids[i], dot(q, set.vecs[i*dim:(i+1)*dim]))
	}
	return best.sorted()
}

// bestHits keeps the k best hits offered to it, by score and then id (worse).
type bestHits struct {
	h hitHeap
	k int
}

// newBestHits returns an empty bestHits for k hits out of at most n offered.
func newBestHits(k, n int) *bestHits {
	return &bestHits{h: make(hitHeap, 0, max(0, min(k, n))), k: k}
}

// consider offers the hit of id, whose cosine with the query is cos, scored (1+cos)/2.
func (t *bestHits) consider(id string, cos float64) {
	hit := graph.Hit{ID: id, Score: (1 + cos) / 2}
	if len(t.h) < t.k {
		heap.Push(&t.h, hit)
	} else if worse(t.h[0], hit) {
		t.h[0] = hit
		heap.Fix(&t.h, 0)
	}
}

// sorted returns the hits kept, best first; t is empty afterwards.
func (t *bestHits) sorted() []graph.Hit {
	out := make([]graph.Hit, len(t.h))
	for i := len(t.h) - 1; i >= 0; i-- {
		out[i] = heap.Pop(&t.h).(graph.Hit)
	}
	return out
}

// dot is the inner product of two unit vectors, clamped to the cosine range that rounding can
// leave. It accumulates in float32 over eight independent sums, which keeps the CPU's pipelines
// busy; for unit vectors the rounding error stays far below what ranking can notice.
func dot(a, b []float32) float64 {
	b = b[:len(a)]
	var s0, s1, s2, s3, s4, s5, s6, s7 float32
	i := 0
	for ; i+8 <= len(a); i += 8 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
		s4 += a[i+4] * b[i+4]
		s5 += a[i+5] * b[i+5]
		s6 += a[i+6] * b[i+6]
		s7 += a[i+7] * b[i+7]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	sum := float64(s0+s1) + float64(s2+s3) + float64(s4+s5) + float64(s6+s7)
	return max(-1, min(1, sum))
}

// lanesDot finishes dot from its eight lane sums (s0..s7), exactly as dot does.
func lanesDot(s []float32) float64 {
	s = s[:8]
	sum := float64(s[0]+s[1]) + float64(s[2]+s[3]) + float64(s[4]+s[5]) + float64(s[6]+s[7])
	return max(-1, min(1, sum))
}

// dot4Lanes is what dot4AVX2 computes, in Go: the lane sums of dot for the four rows of dim
// float32s in rows (dim a multiple of 8).
func dot4Lanes(q, rows []float32, dim int, out *[32]float32) {
	for r := range 4 {
		row := rows[r*dim : (r+1)*dim]
		var s [8]float32
		for i := 0; i+8 <= dim; i += 8 {
			for j := range 8 {
				s[j] += q[i+j] * row[i+j]
			}
		}
		copy(out[8*r:], s[:])
	}
}

// hitOrder orders hits by score, best first, then by id: the order of every search of the
// store (vector, attributed-community and in-memory full-text).
func hitOrder(a, b graph.Hit) int {
	switch {
	case a.Score > b.Score:
		return -1
	case a.Score < b.Score:
		return 1
	}
	return strings.Compare(a.ID, b.ID)
}

// worse reports whether a ranks below b: lower score, or equal score and larger id.
func worse(a, b graph.Hit) bool { return hitOrder(a, b) > 0 }

// hitHeap is a min-heap of hits with the worst hit on top.
type hitHeap []graph.Hit

func (h hitHeap) Len() int           { return len(h) }
func (h hitHeap) Less(i, j int) bool { return worse(h[i], h[j]) }
func (h hitHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *hitHeap) Push(x any)        { *h = append(*h, x.(graph.Hit)) }
func (h *hitHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
