package pipeline_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/rs/zerolog"

	"github.com/stratarag/strata/internal/embedded"
	"github.com/stratarag/strata/internal/embedding"
	"github.com/stratarag/strata/internal/testcorpus"
	"github.com/stratarag/strata/internal/tokenizer"
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
	store, err := embedded.Open(ctx, dir, embedded.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()
	tok, err := tokenizer.New()
	if err != nil {
		log.Fatal(err)
	}
	emb := embedding.NewOffline(384)
	opt := pipeline.DefaultOptions()
	if err := opt.Validate(); err != nil {
		log.Fatal(err)
	}
	in := &pipeline.Ingester{
		Store: store, Extractor: extract.NewOffline(), Embedder: emb, Tokenizer: tok,
		Reporter: &reports.Extractive{Embedder: emb}, Log: zerolog.Nop(), Options: opt,
	}
	for range 2 {
		rep, err := in.Run(ctx, []string{testcorpus.Dir()})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("written %d, unchanged %d, components %d\n", rep.Documents, rep.Unchanged, rep.Components)
	}
	// Output:
	// written 17, unchanged 0, components 2
	// written 0, unchanged 17, components 0
}
