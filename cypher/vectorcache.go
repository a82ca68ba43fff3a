package cypher

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"sync"

	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/topk"
)

// metaChunkGeneration is the StrataMeta key of the counter that Apply bumps whenever it writes
// or deletes chunks (bump_generation.cypher), as metaEntityGraphGeneration counts writes of
// the entity graph.
const metaChunkGeneration = "chunks.generation"

// residentIndexes are the vector indexes a resident store searches in memory: the statement
// that loads an index's vectors and the generation counter that every write of them moves on.
// Communities are left to Neo4j: global mode asks for a few of them, which the index answers
// quickly.
var residentIndexes = map[graph.VectorIndex]struct{ load, generation string }{
	graph.EntityEmbedding: {qReadEntityVectors, metaEntityGraphGeneration},
	graph.ChunkEmbedding:  {qReadChunkVectors, metaChunkGeneration},
}

// residentVectors is a resident store's in-memory copy of one vector index, searched exactly.
// Neo4j's HNSW index answers a query for hi mode's 200 entity candidates by visiting 1 000
// (vectorCandidates), 50–100 ms on 20 k entities, and even a query of 40 chunks among a few
// hundred costs 10 ms; a scan of the same vectors in memory takes a few milliseconds and finds
// the true nearest ones. The copy belongs to one generation of the index's counter
// (residentIndexes), which each search reads (once per read scope) to tell whether the copy
// is current.
type residentVectors struct {
	mu     sync.Mutex
	loaded bool
	gen    string
	dim    int
	ids    []string
	vecs   []float32 // the vectors, one after the other
	norms  []float64 // their lengths
}

// residentVectorSearch answers VectorSearch from the in-memory copy of index, loading it first
// when the generation moved on; ok is false for an index that is not kept in memory. dim is
// the index's dimension: vectors of another dimension are not in Neo4j's index, and neither
// are vectors of length 0, so the copy leaves them out too.
func (s *Store) residentVectorSearch(ctx context.Context, index graph.VectorIndex, vec []float32, k, dim int) (hits []graph.Hit, ok bool, err error) {
	src, ok := residentIndexes[index]
	if !ok {
		return nil, false, nil
	}
	gen, err := s.generation(ctx, src.generation)
	if err != nil {
		return nil, true, err
	}
	s.vectorsMu.Lock()
	v := s.vectors[index]
	if v == nil {
		v = &residentVectors{}
		s.vectors[index] = v
	}
	s.vectorsMu.Unlock()
	v.mu.Lock()
	defer v.mu.Unlock()
	if !v.loaded || v.gen != gen || v.dim != dim {
		if err := s.loadVectors(ctx, v, src.load, src.generation, dim); err != nil {
			return nil, true, err
		}
	}
	return v.search(vec, k), true, nil
}

// generationKeys are the counters of what a resident store keeps copies of, read together once
// per read scope.
var generationKeys = []string{
	metaEntityGraphGeneration, metaChunkGeneration, metaMentionGeneration, metaCommunityGeneration, metaDocumentGeneration,
}

// generation reads the counter under key: once per read scope (graph.WithReadScope), with the
// other generationKeys in the same statement, else on its own.
func (s *Store) generation(ctx context.Context, key string) (string, error) {
	if scope := graph.ReadScopeOf(ctx); scope != nil {
		vals, err := scope.Values(func() (map[string]string, error) { return s.MetaValues(ctx, generationKeys) })
		return vals[key], err
	}
	v, _, err := s.Meta(ctx, key)
	return v, err
}

// loadVectors replaces the copy v by the vectors statement reads, with the generation under
// key they belong to; the caller holds v.mu.
func (s *Store) loadVectors(ctx context.Context, v *residentVectors, statement, key string, dim int) error {
	rows, err := s.readRows(ctx, statement, map[string]any{"key": key})
	if err != nil {
		return fmt.Errorf("load the vectors: %w", err)
	}
	v.loaded, v.gen, v.dim = false, "", dim
	v.ids, v.vecs, v.norms = v.ids[:0], v.vecs[:0], v.norms[:0]
	for _, row := range rows {
		f := fields{m: row}
		if v.gen == "" {
			v.gen = f.str("generation")
		}
		id, emb := f.str("id"), f.vector("embedding")
		if f.err != nil {
			return fmt.Errorf("load the vectors: %w", f.err)
		}
		if len(emb) != dim {
			continue
		}
		norm := length(emb)
		if norm == 0 {
			continue
		}
		v.ids, v.norms = append(v.ids, id), append(v.norms, norm)
		v.vecs = append(v.vecs, emb...)
	}
	v.loaded = true
	return nil
}

// search returns the k vectors nearest to vec by cosine, scored (1+cos)/2 in float32 as Neo4j
// scores, best first and by id among equal scores.
func (v *residentVectors) search(vec []float32, k int) []graph.Hit {
	norm := length(vec)
	if norm == 0 || len(vec) != v.dim {
		return nil
	}
	best := topk.New(k, func(a, b graph.Hit) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	for i, id := range v.ids {
		dot := dot64(vec, v.vecs[i*v.dim:(i+1)*v.dim])
		// Neo4j's scores are float32s: rounded the same way, values that only rounding tells
		// apart (cosines equal in exact arithmetic) tie, and ties go by id, as the index's do.
		score := float64(float32((1 + dot/(norm*v.norms[i])) / 2))
		best.Add(graph.Hit{ID: id, Score: score})
	}
	return best.Items()
}

// length is the Euclidean length of vec.
func length(vec []float32) float64 {
	var sum float64
	for _, x := range vec {
		sum += float64(x) * float64(x)
	}
	return math.Sqrt(sum)
}

// dot64 is the inner product of a and b (of a's length) in float64, over four independent sums,
// which keeps the CPU's pipelines busy: twice as fast as one sum, and as exact for ranking.
func dot64(a, b []float32) float64 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += float64(a[i]) * float64(b[i])
		s1 += float64(a[i+1]) * float64(b[i+1])
		s2 += float64(a[i+2]) * float64(b[i+2])
		s3 += float64(a[i+3]) * float64(b[i+3])
	}
	for ; i < len(a); i++ {
		s0 += float64(a[i]) * float64(b[i])
	}
	return (s0 + s1) + (s2 + s3)
}
