package embedded_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/stratarag/strata/internal/embedded"
	"github.com/stratarag/strata/internal/graph"
)

// Example shows the store contract as the pipeline and retrieval use it: one atomic batch of
// writes, the graph algorithms, a vector search and a bridge path. The Neo4j backend
// (cypher.Open) behaves the same.
func Example() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "strata-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	store, err := embedded.Open(ctx, dir, embedded.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()

	entity := func(name string, vec ...float32) graph.Entity {
		return graph.Entity{ID: graph.NormalizeID(name), Name: name, Type: "person", Embedding: vec}
	}
	err = store.Apply(ctx, graph.Batch{
		Entities: []graph.Entity{entity("Ilsa Marrow", 1, 0), entity("Edda Fenwick", 0.8, 0.6), entity("Osric Daventh", 0, 1)},
		Relations: []graph.Relation{
			{Source: "ILSA MARROW", Target: "EDDA FENWICK", Description: "Ilsa Marrow trained Edda Fenwick", Weight: 2},
			{Source: "EDDA FENWICK", Target: "OSRIC DAVENTH", Description: "Edda Fenwick studied under Osric Daventh", Weight: 1},
		},
	})
	if err != nil {
		log.Fatal(err)
	}

	components, err := store.ComputeComponents(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("components:", components)

	hits, err := store.VectorSearch(ctx, graph.EntityEmbedding, []float32{1, 0}, 2)
	if err != nil {
		log.Fatal(err)
	}
	for _, h := range hits {
		fmt.Printf("hit %s %.2f\n", h.ID, h.Score)
	}

	paths, err := store.ShortestPaths(ctx, []graph.PathRequest{{Source: "ILSA MARROW", Target: "OSRIC DAVENTH"}}, 4)
	if err != nil {
		log.Fatal(err)
	}
	for _, step := range paths[0].Steps {
		fmt.Println("step:", step.Description)
	}
	// Output:
	// components: 1
	// hit ILSA MARROW 1.00
	// hit EDDA FENWICK 0.90
	// step: Ilsa Marrow trained Edda Fenwick
	// step: Edda Fenwick studied under Osric Daventh
}
