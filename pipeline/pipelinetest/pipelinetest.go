// Package pipelinetest is the one fixture for tests that need a real graph: the test corpus
// (package testcorpus) ingested offline into an embedded store, with the offline extractor,
// embedder and extractive reports, as `strata ingest --offline` would build it.
package pipelinetest

import (
	"context"
	"fmt"
	"testing"

	"github.com/rs/zerolog"

	"github.com/stratarag/strata/internal/embedded"
	"github.com/stratarag/strata/internal/embedding"
	"github.com/stratarag/strata/internal/testcorpus"
	"github.com/stratarag/strata/internal/tokenizer"
	"github.com/stratarag/strata/pipeline"
	"github.com/stratarag/strata/pipeline/arch"
	"github.com/stratarag/strata/pipeline/extract"
	"github.com/stratarag/strata/pipeline/reports"
)

// Fixture is the ingested corpus and what was used to build it, for queries against it.
type Fixture struct {
	Store     *embedded.Store
	Embedder  embedding.Embedder
	Tokenizer *tokenizer.Tokenizer
}

// Ingested ingests the test corpus into a new store in t's temporary directory with an offline
// embedder of dims dimensions and the default options; the store is closed when t ends.
func Ingested(t testing.TB, dims int) Fixture {
	t.Helper()
	f, err := Ingest(context.Background(), t.TempDir(), dims)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Store.Close() })
	return f
}

// Ingest is Ingested for code without a testing.TB (examples): the store in dir is the
// caller's to close.
func Ingest(ctx context.Context, dir string, dims int) (Fixture, error) {
	store, err := embedded.Open(ctx, dir, embedded.Options{})
	if err != nil {
		return Fixture{}, err
	}
	tok, err := tokenizer.New()
	if err != nil {
		store.Close()
		return Fixture{}, err
	}
	emb := embedding.NewOffline(dims)
	opt := pipeline.DefaultOptions()
	opt.Arch = arch.DefaultOptions() // every query mode works on the fixture, arch too
	in := &pipeline.Ingester{
		Store: store, Extractor: extract.NewOffline(), Embedder: emb, Tokenizer: tok,
		Reporter: &reports.Extractive{Embedder: emb}, Log: zerolog.Nop(), Options: opt,
	}
	if _, err := in.Run(ctx, []string{testcorpus.Dir()}); err != nil {
		store.Close()
		return Fixture{}, fmt.Errorf("ingest %s: %w", testcorpus.Dir(), err)
	}
	return Fixture{Store: store, Embedder: emb, Tokenizer: tok}, nil
}
