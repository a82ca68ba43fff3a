package embedded

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"

	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/vectorindex"
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

// vectorSet is every embedding of one index, decoded and L2-normalized (vectorindex.Set), with
// the generation it was loaded at. Zero vectors are left out: their cosine is undefined, and
// Neo4j's cosine vector indexes do not index them either.
type vectorSet struct {
	*vectorindex.Set
	gen int64
	// fromFile is true when the set was read from the index's vector file rather than SQLite.
	fromFile bool
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
		errs = append(errs, vectorindex.Unmap(m))
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
	if set.Dim() == 0 || k <= 0 {
		return nil, nil
	}
	if len(vec) != set.Dim() {
		return nil, fmt.Errorf("%s: query vector has %d dimensions, the index has %d", what, len(vec), set.Dim())
	}
	q := vectorindex.Normalized(vec)
	if q == nil {
		return nil, fmt.Errorf("%s: query vector is zero or not finite", what)
	}
	return set.Search(q, k), nil
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
		if cached != nil && cached.gen == st.Gen {
			out = cached
			return nil
		}
		set, ferr := s.loadVectorFile(index, st)
		if ferr != nil {
			// Missing, stale or damaged: SQLite has the same vectors, only slower to decode.
			if set, err = loadVectors(ctx, tx, table); err != nil {
				return err
			}
			set.gen = st.Gen
		}
		if s.resident {
			set.Set = set.WithHalf()
		}
		if s.vectors.sets == nil {
			s.vectors.sets = map[graph.VectorIndex]*vectorSet{}
		}
		if m := set.Mapping(); m != nil {
			s.vectors.mapped = append(s.vectors.mapped, m)
		}
		s.vectors.sets[index] = set
		out = set
		return nil
	})
	return out, err
}

// loadVectors reads and normalizes every embedding of a table (eachVector).
func loadVectors(ctx context.Context, tx *sql.Tx, table string) (*vectorSet, error) {
	var ids []string
	var vecs []float32
	dim, err := eachVector(ctx, tx, table, func(id string, v []float32) error {
		ids = append(ids, id)
		vecs = append(vecs, v...)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &vectorSet{Set: vectorindex.NewSet(dim, ids, vecs)}, nil
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
		if v = vectorindex.Normalized(v); v == nil {
			continue
		}
		if err := fn(id, v); err != nil {
			return 0, err
		}
	}
	return dim, rows.Err()
}
