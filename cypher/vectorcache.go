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

// entityVectors is a resident store's in-memory copy of the entity vector index, searched
// exactly. Neo4j's HNSW index answers a query for hi mode's 200 candidates by visiting 1 000
// (vectorCandidates) at some 50–100 ms on 20 k entities; a scan of the same vectors in memory
// takes a few milliseconds and finds the true nearest ones, which the wide HNSW search finds
// too. The copy belongs to one entity graph generation (bump_generation.cypher: every write of
// an entity moves it on), which each search reads to tell whether the copy is still current.
type entityVectors struct {
	mu     sync.Mutex
	loaded bool
	gen    string
	dim    int
	ids    []string
	vecs   []float32 // the vectors, one after the other
	norms  []float64 // their lengths
}

// residentVectorSearch answers VectorSearch(EntityEmbedding) from the in-memory copy, loading
// it first when the entity graph generation moved on. dim is the index's dimension: vectors of
// another dimension are not in Neo4j's index, and neither are vectors of length 0, so the copy
// leaves them out too.
func (s *Store) residentVectorSearch(ctx context.Context, vec []float32, k, dim int) ([]graph.Hit, error) {
	gen, err := s.readMetaValue(ctx, metaEntityGraphGeneration)
	if err != nil {
		return nil, err
	}
	v := &s.entityVectors
	v.mu.Lock()
	defer v.mu.Unlock()
	if !v.loaded || v.gen != gen || v.dim != dim {
		if err := s.loadEntityVectors(ctx, dim); err != nil {
			return nil, err
		}
	}
	return v.search(vec, k), nil
}

// readMetaValue reads one StrataMeta value; "" when it is not set.
func (s *Store) readMetaValue(ctx context.Context, key string) (string, error) {
	rows, err := s.readRows(ctx, qReadMeta, map[string]any{"key": key})
	if err != nil || len(rows) == 0 {
		return "", err
	}
	f := fields{m: rows[0]}
	value := f.str("value")
	return value, f.err
}

// loadEntityVectors replaces the copy by the entity vectors of the current generation; the
// caller holds v.mu.
func (s *Store) loadEntityVectors(ctx context.Context, dim int) error {
	v := &s.entityVectors
	rows, err := s.readRows(ctx, qReadEntityVectors, map[string]any{"key": metaEntityGraphGeneration})
	if err != nil {
		return fmt.Errorf("load the entity vectors: %w", err)
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
			return fmt.Errorf("load the entity vectors: %w", f.err)
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

// search returns the k entities nearest to vec by cosine, scored (1+cos)/2 as Neo4j scores,
// best first and by id among equal scores.
func (v *entityVectors) search(vec []float32, k int) []graph.Hit {
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
		row := v.vecs[i*v.dim : (i+1)*v.dim]
		var dot float64
		for j, x := range row {
			dot += float64(x) * float64(vec[j])
		}
		best.Add(graph.Hit{ID: id, Score: (1 + dot/(norm*v.norms[i])) / 2})
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
