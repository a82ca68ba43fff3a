package pipeline

import (
	"fmt"

	"github.com/stratarag/strata/pipeline/arch"
	"github.com/stratarag/strata/pipeline/chunk"
	"github.com/stratarag/strata/pipeline/layers"
)

// Options configures a run. Start from DefaultOptions and check changed fields with Validate: the
// Ingester uses every field as it is.
type Options struct {
	Chunk chunk.Options
	// Concurrency is the number of documents extracted at once.
	Concurrency int
	// ChunkConcurrency is the number of chunks of one document extracted at once (1: one after
	// the other). Results are kept in chunk order whatever it is. A model's Batch API wants
	// many requests waiting at once (cmd/strata raises it with --llm-batch).
	ChunkConcurrency int
	// EmbedBatch is the number of texts sent to the embedder at once at most, and EmbedTokens
	// their tokens at most (a longer chunk goes alone); chunks are gathered across documents.
	EmbedBatch  int
	EmbedTokens int
	// ChunkBatch is the number of chunks resolved and written in one transaction at most. A
	// huge document is written batch by batch, so memory stays bounded and a killed run resumes
	// after the last batch written; consecutive documents of at most ChunkBatch chunks in all
	// are written together (a transaction per small document was most of an ingest into
	// Neo4j). Evidence merges in document and chunk order whatever the batches, so the graph
	// does not depend on this number, except where a description grows past the summarizer's
	// limit at another point: keep it between runs.
	ChunkBatch int
	// Layers configures the hierarchical index (checked by layers.Options.Validate);
	// Layers.MaxLayers 0 builds none.
	Layers layers.Options
	// Aggregate adds LeanRAG's inter-summary relations to every summary layer (see
	// pipeline/layers/aggregate.go): RELATED relationships between summaries whose members are
	// joined by more base relations than the layer's threshold (Layers.AggregateK).
	Aggregate bool
	// ModelStructureAll says the structure stages ask the model for every summary, inter-summary
	// relation and community report, however little their input holds (--llm-structure all);
	// the stages are built to match (their thresholds negative), and the dry run predicts them
	// so.
	ModelStructureAll bool
	// Arch configures ArchRAG's attributed-community hierarchy (pipeline/arch); MaxLayers 0,
	// the default, builds none.
	Arch arch.Options
	// Seed seeds both community detection (Leiden) and the hierarchical index's mixtures, so
	// that one number reproduces a run's structure.
	Seed int64
	// Rebuild allows a run whose chunk settings differ from the ones the store records: every
	// document of the run is re-chunked (and its new chunks extracted). Without it such a run is
	// refused before anything is written.
	Rebuild bool
	// Restructure builds the structure (summary layers, communities, reports) whole, as a first
	// ingest does, rather than updating it with what the run changed.
	Restructure bool
	// Replace lets an input take over a document id the store holds for another source. Without
	// it such a run is refused before anything is written.
	Replace bool
}

// DefaultOptions returns the options of the CLI's ingest: chunk.DefaultOptions, 4 documents at a
// time, 64 texts and 8000 tokens per embedding call, 64 chunks per write, layers.DefaultOptions with the
// aggregation, no attributed communities (arch.DefaultOptions with MaxLayers 0) and seed 42.
func DefaultOptions() Options {
	return Options{Chunk: chunk.DefaultOptions(), Concurrency: 4, ChunkConcurrency: 1, EmbedBatch: 64, EmbedTokens: 8000, ChunkBatch: 64, Layers: layers.DefaultOptions(), Aggregate: true, Arch: noArch(), Seed: 42}
}

// Validate reports the first option no run can use, naming it. Chunk, layer and arch options are
// checked by their own Validate, where they are defined.
func (o Options) Validate() error {
	if err := o.Chunk.Validate(); err != nil {
		return err
	}
	if err := o.Layers.Validate(); err != nil {
		return err
	}
	switch {
	case o.Concurrency < 1:
		return fmt.Errorf("concurrency must be at least 1, got %d", o.Concurrency)
	case o.ChunkConcurrency < 1:
		return fmt.Errorf("chunk concurrency must be at least 1, got %d", o.ChunkConcurrency)
	case o.EmbedBatch < 1:
		return fmt.Errorf("embed batch must be at least 1, got %d", o.EmbedBatch)
	case o.EmbedTokens < 1:
		return fmt.Errorf("embed tokens must be at least 1, got %d", o.EmbedTokens)
	case o.ChunkBatch < 1:
		return fmt.Errorf("chunk batch must be at least 1, got %d", o.ChunkBatch)
	}
	return o.Arch.Validate()
}

// noArch is arch.DefaultOptions switched off: `--arch N` sets MaxLayers and keeps the rest.
func noArch() arch.Options {
	o := arch.DefaultOptions()
	o.MaxLayers = 0
	return o
}
