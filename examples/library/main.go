// Command library shows strata used as a Go library: it ingests testdata/corpus offline into a
// temporary embedded store and prints the hi-mode context of a question, as
// `strata ingest --offline` then `strata query --context-only` would. Run it from this
// directory with `go run .` (`make test` does).
package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/stratarag/strata"
	"github.com/stratarag/strata/pipeline"
	"github.com/stratarag/strata/retrieval"
)

const question = "Who founded the guild that Edda Fenwick led from 1124?"

func main() {
	if err := run(context.Background()); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context) error {
	dir, err := os.MkdirTemp("", "strata-library")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	store, err := strata.OpenEmbedded(ctx, dir, strata.EmbeddedOptions{})
	if err != nil {
		return err
	}
	defer store.Close()
	tok, err := strata.NewTokenizer()
	if err != nil {
		return err
	}
	// No Chat: extraction, summaries and reports offline. With a model, set Chat to a client
	// (strata.NewClient(strata.ClientConfigFromEnv())) and Embedder to the same client.
	models := strata.Models{Embedder: strata.NewOfflineEmbedder(), Tokenizer: tok}
	in, err := models.Ingester(store, pipeline.DefaultOptions())
	if err != nil {
		return err
	}
	rep, err := in.Run(ctx, []string{filepath.Join("..", "..", "testdata", "corpus")})
	if err != nil {
		return fmt.Errorf("ingest: %w", err)
	}
	fmt.Printf("ingested %d documents: %d entities, %d communities\n\n", rep.Documents, rep.Entities, rep.Communities)

	opt, err := retrieval.NewOptions(retrieval.ModeHi, retrieval.Overrides{ContextOnly: true})
	if err != nil {
		return err
	}
	res, err := models.Engine(store).Query(ctx, question, opt)
	if err != nil {
		return fmt.Errorf("query: %w", err)
	}
	fmt.Println(res.ContextText)
	return nil
}
