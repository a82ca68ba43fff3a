package pipeline_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/rs/zerolog"

	"github.com/stratarag/strata"
	"github.com/stratarag/strata/pipeline"
	"github.com/stratarag/strata/pipeline/extract"
	"github.com/stratarag/strata/pipeline/reports"
)

// ExampleIngester ingests a folder offline into an embedded store, as `strata ingest --offline
// --layers 0` does (no LayerSummarizer: no summary layers); a second run finds every document
// unchanged and does nothing.
func ExampleIngester() {
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
	emb := strata.NewOfflineEmbedder()
	opt := pipeline.DefaultOptions()
	if err := opt.Validate(); err != nil {
		log.Fatal(err)
	}
	in := &pipeline.Ingester{
		Store: store, Extractor: extract.NewOffline(), Embedder: emb, Tokenizer: tok,
		Reporter: &reports.Extractive{Embedder: emb}, Log: zerolog.Nop(), Options: opt,
	}
	for range 2 {
		rep, err := in.Run(ctx, []string{"../testdata/corpus"})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("written %d, unchanged %d, components %d\n", rep.Documents, rep.Unchanged, rep.Components)
	}
	// Output:
	// written 17, unchanged 0, components 2
	// written 0, unchanged 17, components 0
}
