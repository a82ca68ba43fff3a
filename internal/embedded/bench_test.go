package embedded

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/graph/storetest"
)

// benchBatch is a batch of the size one ingested document typically produces: chunks with
// embeddings, entities, relations and mentions. prefix keeps ids of different batches apart.
func benchBatch(rng *rand.Rand, prefix string, chunks, entities, dim int) graph.Batch {
	b := graph.Batch{Documents: []graph.Document{{ID: prefix, Title: prefix, Metadata: "{}"}}}
	for i := range chunks {
		id := fmt.Sprintf("%s-c%d", prefix, i)
		b.Chunks = append(b.Chunks, graph.Chunk{
			ID: id, DocumentID: prefix, Seq: i, Tokens: 1200, Embedding: randomVector(rng, dim),
			Text: fmt.Sprintf("chunk %d of %s about topic%d and topic%d", i, prefix, rng.IntN(100), rng.IntN(100)),
		})
		b.Mentions = append(b.Mentions, graph.Mention{ChunkID: id, EntityID: fmt.Sprintf("%s-e%d", prefix, rng.IntN(entities))})
	}
	for i := range entities {
		id := fmt.Sprintf("%s-e%d", prefix, i)
		b.Entities = append(b.Entities, graph.Entity{
			ID: id, Name: id, Type: "thing", Description: "an entity of " + prefix, Embedding: randomVector(rng, dim),
		})
		if i > 0 {
			k := graph.NewRelationKey(id, fmt.Sprintf("%s-e%d", prefix, rng.IntN(i)))
			b.Relations = append(b.Relations, graph.Relation{Source: k.Source, Target: k.Target, Description: "related", Weight: 1})
		}
	}
	return b
}

func randomVector(rng *rand.Rand, dim int) []float32 {
	v := make([]float32, dim)
	for i := range v {
		v[i] = float32(rng.NormFloat64())
	}
	return v
}

func BenchmarkApply(b *testing.B) {
	s := openTemp(b)
	rng := rand.New(rand.NewPCG(1, 2))
	batches := make([]graph.Batch, b.N)
	for i := range batches {
		batches[i] = benchBatch(rng, fmt.Sprintf("doc%d", i), 100, 50, 384)
	}
	b.ResetTimer()
	for i := range b.N {
		if err := s.Apply(b.Context(), batches[i]); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkVectorSearch(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("chunks=%d/dim=384", n), func(b *testing.B) {
			s := openTemp(b)
			rng := rand.New(rand.NewPCG(3, 4))
			for i := 0; i < n; i += 1000 {
				if err := s.Apply(b.Context(), benchBatch(rng, fmt.Sprintf("doc%d", i), 1000, 10, 384)); err != nil {
					b.Fatal(err)
				}
			}
			q := randomVector(rng, 384)
			if _, err := s.VectorSearch(b.Context(), graph.ChunkEmbedding, q, 10); err != nil {
				b.Fatal(err) // loads the cache outside the timed loop
			}
			b.ResetTimer()
			for range b.N {
				if _, err := s.VectorSearch(b.Context(), graph.ChunkEmbedding, q, 10); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkTextSearch(b *testing.B) {
	s := openTemp(b)
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range 10 {
		if err := s.Apply(b.Context(), benchBatch(rng, fmt.Sprintf("doc%d", i), 1000, 10, 8)); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for range b.N {
		if _, err := s.TextSearch(b.Context(), graph.ChunkText, "topic7 topic42 doc3", 10); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkComputeCommunities measures Leiden plus rewriting the hierarchy on 4000 entities.
func BenchmarkComputeCommunities(b *testing.B) {
	s := openTemp(b)
	if err := s.Apply(b.Context(), storetest.RingOfCliques(500, 8)); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		if _, err := s.ComputeCommunities(b.Context(), graph.DefaultLeidenParams()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkShortestPaths measures ten path requests on a cached graph of 4000 entities.
func BenchmarkShortestPaths(b *testing.B) {
	s := openTemp(b)
	if err := s.Apply(b.Context(), storetest.RingOfCliques(500, 8)); err != nil {
		b.Fatal(err)
	}
	var reqs []graph.PathRequest
	for i := range 10 {
		reqs = append(reqs, graph.PathRequest{Source: fmt.Sprintf("R%02d-3", i), Target: fmt.Sprintf("R%02d-5", 40+i*7)})
	}
	if _, err := s.ShortestPaths(b.Context(), reqs, 200); err != nil {
		b.Fatal(err) // loads the graph cache outside the timed loop
	}
	b.ResetTimer()
	for range b.N {
		if _, err := s.ShortestPaths(b.Context(), reqs, 200); err != nil {
			b.Fatal(err)
		}
	}
}
