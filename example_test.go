package strata_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"slices"

	"github.com/stratarag/strata"
	"github.com/stratarag/strata/pipeline"
	"github.com/stratarag/strata/retrieval"
)

// ExampleModels ingests a folder offline into a new embedded store and asks it a question in hi
// mode, as `strata ingest --offline` and `strata query --context-only` do, through the public
// API alone.
func ExampleModels() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "strata-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	store, err := strata.OpenEmbedded(ctx, dir, strata.EmbeddedOptions{})
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()
	tok, err := strata.NewTokenizer()
	if err != nil {
		log.Fatal(err)
	}
	models := strata.Models{Embedder: strata.NewOfflineEmbedder(), Tokenizer: tok} // no Chat: offline
	in, err := models.Ingester(store, pipeline.DefaultOptions())
	if err != nil {
		log.Fatal(err)
	}
	rep, err := in.Run(ctx, []string{"testdata/corpus"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("documents written:", rep.Documents)

	opt, err := retrieval.NewOptions(retrieval.ModeHi, retrieval.Overrides{ContextOnly: true})
	if err != nil {
		log.Fatal(err)
	}
	res, err := models.Engine(store).Query(ctx, "Who founded the guild that Edda Fenwick led from 1124?", opt)
	if err != nil {
		log.Fatal(err)
	}
	var docs []string
	for _, c := range res.Context.Chunks {
		docs = append(docs, c.DocumentID)
	}
	fmt.Println("both gold documents among the sources:",
		slices.Contains(docs, "edda-fenwick.txt") && slices.Contains(docs, "harbor-guild.md"))
	// Output:
	// documents written: 17
	// both gold documents among the sources: true
}
