// Package pipeline runs ingestion: load → chunk → extract → resolve → embed → layers →
// components → communities → reports. Each stage lives in its own package under pipeline/;
// this package orders them, runs extraction concurrently, and writes each document atomically
// so that an interrupted run resumes where it stopped.
//
// Run (ingest.go) calls the stages in order: the document loop (documents.go: load, chunk,
// extract and embed chunks; write.go: resolve and write one document), entity embeddings
// (embed.go), and the graph-wide structure (structure.go: hierarchical index, components,
// communities, reports). Estimate (estimate.go) is the dry run; options.go holds the options.
package pipeline

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/rs/zerolog"

	"github.com/stratarag/strata/internal/embedding"
	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/tokenizer"
	"github.com/stratarag/strata/pipeline/extract"
	"github.com/stratarag/strata/pipeline/layers"
	"github.com/stratarag/strata/pipeline/load"
	"github.com/stratarag/strata/pipeline/resolve"
)

// Progress receives progress of the document loop; the CLI shows it as a bar on a terminal.
type Progress interface {
	Start(total int)
	Add(n int)
	Finish()
}

// Store is what ingestion needs from a backend: everything but search.
type Store interface {
	graph.ReadWriter
	graph.Analyzer
}

// Reporter writes community reports for freshly computed communities.
type Reporter interface {
	Reports(ctx context.Context, store graph.ReadWriter, communities []graph.Community) error
}

// Ingester runs the pipeline against a store.
type Ingester struct {
	Store      Store
	Extractor  extract.Extractor
	Embedder   embedding.Embedder
	Tokenizer  *tokenizer.Tokenizer
	Summarizer resolve.Summarizer // nil: extractive description merging
	// LayerSummarizer writes the summary entities of the hierarchical index, which the Ingester
	// builds with Options.Layers and Options.Seed; nil skips the index.
	LayerSummarizer layers.Summarizer
	Reporter        Reporter // writes community reports; nil skips the reports stage
	Progress        Progress // nil: no progress display
	Log             zerolog.Logger
	Options         Options // used as they are: see DefaultOptions and Validate
}

// Report summarizes a run.
type Report struct {
	Documents     int            // documents written (new or changed)
	Unchanged     int            // documents already stored with the same text
	Failed        int            // documents whose extraction failed; a re-run retries them
	Duplicates    int            // inputs whose document id appeared earlier in the run (the later one is kept)
	Changed       int            // documents stored before with another text
	Chunks        int            // chunks written
	DeletedChunks int            // chunks of changed documents' old text, deleted
	Entities      int            // entities written (new or merged)
	Relations     int            // relations written (new or merged)
	EntityEmbeds  int            // entities (re-)embedded
	Layers        []layers.Layer // summary layers built
	Components    int
	Communities   int
	Problems      []load.Problem
	Duration      time.Duration
	StageDuration map[string]time.Duration
}

// ErrNothingIngested is returned when no input could be used.
var ErrNothingIngested = errors.New("nothing could be ingested")

// Run ingests the documents under paths. in.Options must pass Validate; Run does not check them
// again.
func (in *Ingester) Run(ctx context.Context, paths []string) (Report, error) {
	start := time.Now()
	rep := Report{StageDuration: map[string]time.Duration{}}
	meta, err := in.checkEmbeddingModel(ctx)
	if err != nil {
		return rep, err
	}

	t := time.Now()
	docs, problems, dups, err := LoadDocuments(ctx, paths, in.Log)
	rep.Problems, rep.Duplicates = problems, dups
	rep.StageDuration["load"] = time.Since(t)
	for _, p := range rep.Problems {
		in.Log.Warn().Str("input", p.Source).Err(p.Err).Msg("skipped input")
	}
	if err != nil {
		return rep, err
	}
	if len(docs) == 0 {
		return rep, fmt.Errorf("%w: %d input(s) skipped", ErrNothingIngested, len(rep.Problems))
	}
	in.Log.Info().Int("documents", len(docs)).Str("extractor", in.Extractor.Name()).Str("embedder", in.Embedder.Model()).Msg("ingesting")
	if err := in.markStarted(ctx); err != nil {
		return rep, err
	}

	t = time.Now()
	if err := in.documents(ctx, docs, meta, &rep); err != nil {
		return rep, err
	}
	rep.StageDuration["documents"] = time.Since(t)
	if rep.Documents == 0 && rep.Failed > 0 {
		return rep, fmt.Errorf("%w: extraction failed for all %d document(s)", ErrNothingIngested, rep.Failed)
	}

	t = time.Now()
	if rep.EntityEmbeds, err = in.embedEntities(ctx); err != nil {
		return rep, err
	}
	rep.StageDuration["embed"] = time.Since(t)

	if err := in.structure(ctx, &rep); err != nil {
		return rep, err
	}
	if err := in.markFinished(ctx, &rep); err != nil {
		return rep, err
	}
	rep.Duration = time.Since(start)
	return rep, nil
}
