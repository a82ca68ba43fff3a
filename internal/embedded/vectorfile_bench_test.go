package embedded

import (
	"database/sql"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/graph/storetest"
	"github.com/stratarag/strata/internal/vectorindex"
)

// vectorBenchStore builds, once per benchmark, a closed store of n entities with 384-dimension
// embeddings (the size of a real embedding model's) and its vector files.
func vectorBenchStore(b *testing.B, n int) string {
	b.Helper()
	dir := b.TempDir()
	s, err := Open(b.Context(), dir, Options{})
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < n; i += 5000 {
		if err := s.Apply(b.Context(), entityBatch(rng, fmt.Sprintf("b%06d", i), min(5000, n-i), 384)); err != nil {
			b.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	return dir
}

// BenchmarkVectorLoad measures what a fresh query process pays before its first entity vector
// search: decoding every embedding row from SQLite (the fallback) against reading the index's
// vector file.
func BenchmarkVectorLoad(b *testing.B) {
	for _, n := range []int{20000} {
		dir := vectorBenchStore(b, n)
		r, err := Open(b.Context(), dir, Options{ReadOnly: true})
		if err != nil {
			b.Fatal(err)
		}
		var st vectorindex.Label
		if err := r.read(b.Context(), "state", func(tx *sql.Tx) (err error) {
			st, err = readVectorFileState(b.Context(), tx, graph.EntityEmbedding)
			return err
		}); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("sqlite/n=%d", n), func(b *testing.B) {
			for range b.N {
				if err := r.read(b.Context(), "load", func(tx *sql.Tx) error {
					_, err := loadVectors(b.Context(), tx, "entities")
					return err
				}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("file/n=%d", n), func(b *testing.B) {
			b.SetBytes(int64(n) * 384 * 4)
			for range b.N {
				if _, err := vectorindex.ReadFile(filepath.Join(dir, vectorFileName(graph.EntityEmbedding)), st, false); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("mapped/n=%d", n), func(b *testing.B) {
			b.SetBytes(int64(n) * 384 * 4)
			for range b.N {
				set, err := vectorindex.ReadFile(filepath.Join(dir, vectorFileName(graph.EntityEmbedding)), st, true)
				if err != nil {
					b.Fatal(err)
				}
				if m := set.Mapping(); m != nil {
					vectorindex.Unmap(m)
				}
			}
		})
		r.Close()
	}
}

// BenchmarkEntityGraphLoad measures what a fresh process pays before its first bridge path on a
// graph of 20 k entities: reading entities, relations and summary links from SQLite against
// reading the entity graph file.
func BenchmarkEntityGraphLoad(b *testing.B) {
	dir := b.TempDir()
	s, err := Open(b.Context(), dir, Options{})
	if err != nil {
		b.Fatal(err)
	}
	if err := s.Apply(b.Context(), storetest.RingOfCliques(2500, 8)); err != nil {
		b.Fatal(err)
	}
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	r, err := Open(b.Context(), dir, Options{ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	var st vectorindex.Label
	if err := r.read(b.Context(), "state", func(tx *sql.Tx) (err error) {
		st, err = readFileState(b.Context(), tx, genEntityGraph, graphFileMetaKey)
		return err
	}); err != nil {
		b.Fatal(err)
	}
	b.Run("sqlite", func(b *testing.B) {
		for range b.N {
			if err := r.read(b.Context(), "load", func(tx *sql.Tx) error {
				_, err := loadEntityGraph(b.Context(), tx)
				return err
			}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("file", func(b *testing.B) {
		for range b.N {
			if _, err := readGraphFile(filepath.Join(dir, graphFileName), st); err != nil {
				b.Fatal(err)
			}
		}
	})
}
