// Package pipeline runs ingestion: load → chunk → extract → resolve → embed → layers →
// components → communities → reports. Each stage lives in its own package under pipeline/;
// this package orders them, runs extraction concurrently, and writes each document in batches of
// chunks, each batch atomically, so that an interrupted run resumes where it stopped, inside a
// huge document too.
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
	"maps"
	"time"

	"github.com/rs/zerolog"

	"github.com/stratarag/strata/internal/embedding"
	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/memstat"
	"github.com/stratarag/strata/internal/tokenizer"
	"github.com/stratarag/strata/pipeline/arch"
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
	graph.EntityPager
	graph.EntityScanner
	graph.EntityTextReader
	graph.Analyzer
	graph.ArchIndex
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
	// RelationDescriber describes LeanRAG's inter-summary relations, which the index gets with
	// Options.Aggregate; nil describes them extractively (layers.ExtractiveRelations).
	RelationDescriber layers.RelationDescriber
	Reporter          Reporter // writes community reports; nil skips the reports stage
	// ArchSummarizer describes the attributed communities built with Options.Arch; nil:
	// arch.Extractive.
	ArchSummarizer arch.Summarizer
	Progress       Progress // nil: no progress display
	// NoSample makes Estimate call no model: extraction answers are assumed rather than
	// measured on a sample (the check of a token budget before a run's first call).
	NoSample bool
	Log      zerolog.Logger
	Options  Options // used as they are: see DefaultOptions and Validate
	// Memory is the process's memory policy, which the Ingester applies around its stages
	// (memstat.Policy.Stage) and at their ends (Release), and hands to the steps that let go of
	// large arrays part way; the zero policy leaves memory to the runtime.
	Memory memstat.Policy

	changes *changeSet // what the current run changed, for an update of the structure
	// deferred lists the descriptions the current run merges with the model at the end of its
	// documents stage; nil without a Summarizer.
	deferred *deferredDescriptions
}

// Report summarizes a run.
type Report struct {
	Documents     int // documents written (new or changed)
	Unchanged     int // documents already stored with the same text (and chunks)
	Failed        int // documents whose extraction failed; a re-run retries them
	Duplicates    int // inputs read twice in the run (one file through two paths, a record repeated whole), kept once
	Changed       int // documents stored before with another text
	Rechunked     int // documents with the same text cut again with other chunk settings
	Relabeled     int // unchanged documents whose title, source or metadata were updated
	Chunks        int // chunks written
	ChunkTokens   int // their tokens: the corpus tokens the run's model spending is measured against
	DeletedChunks int // chunks of changed or re-chunked documents that are gone, deleted
	Entities      int // entities written (new or merged)
	Relations     int // relations written (new or merged)
	// DeletedEntities and DeletedRelations count what was left without evidence and removed.
	DeletedEntities  int
	DeletedRelations int
	EntityEmbeds     int            // entities (re-)embedded
	Layers           []layers.Layer // summary layers built (by a build, or on top by an update)
	Structure        StructureReport
	Arch             []arch.Layer // attributed-community layers built (Options.Arch)
	Components       int
	Communities      int
	Problems         []load.Problem // inputs skipped: broken, unreadable, or named directly with an unsupported type
	Ignored          []load.Problem // folder entries left out by rule (hidden, symbolic links, other types)
	Unmapped         map[string]int // by source: glyphs of a PDF left out of its text, with no Unicode mapping
	Duration         time.Duration
	StageDuration    map[string]time.Duration
	// StageStatements is what each stage sent to a database server (Neo4j): nil for a store in
	// the process.
	StageStatements map[string]StatementCount
	statementsSeen  StatementCount // the store's totals when the last stage finished
}

// StatementCount is what the statements sent to a database server cost: how many, and their
// time summed (concurrent statements overlap, so the sum can pass the wall time).
type StatementCount struct {
	Calls   int
	Elapsed time.Duration
}

// statementCounter is a store that counts the statements it sends to a server, so that a run's
// report can say which stage's round trips its time goes to.
type statementCounter interface {
	StatementTotal() (calls int, elapsed time.Duration)
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
	plan, err := in.planSettings(ctx)
	if err != nil {
		return rep, err
	}
	maps.Copy(meta, plan.first)

	t := time.Now()
	docs, problems, dups, err := LoadDocuments(ctx, paths, in.Log)
	rep.Problems, rep.Ignored = splitIgnored(problems)
	rep.Duplicates = dups
	for _, d := range docs {
		if d.Unmapped > 0 {
			if rep.Unmapped == nil {
				rep.Unmapped = map[string]int{}
			}
			rep.Unmapped[d.Source] = d.Unmapped
			in.Log.Warn().Str("source", d.Source).Str("document", d.ID).Int("unmapped_glyphs", d.Unmapped).
				Msg("glyphs without a Unicode mapping left out of the text")
		}
	}
	in.stageDone(&rep, "load", t)
	for _, p := range rep.Problems {
		in.Log.Warn().Str("input", p.Source).Err(p.Err).Msg("skipped input")
	}
	for _, p := range rep.Ignored {
		in.Log.Info().Str("input", p.Source).Err(p.Err).Msg("ignored folder entry")
	}
	if err != nil {
		return rep, err
	}
	if len(docs) == 0 {
		return rep, fmt.Errorf("%w: %d input(s) skipped, %d ignored", ErrNothingIngested, len(rep.Problems), len(rep.Ignored))
	}
	// Identity is settled before anything is written: a refused run leaves the store as it was.
	if err := in.keepStoredIDs(ctx, docs); err != nil {
		return rep, err
	}
	docs, repeats, err := dedupeIDs(docs, in.Log)
	if err != nil {
		return rep, err
	}
	rep.Duplicates += repeats
	if err := in.checkStoredOwners(ctx, docs); err != nil {
		return rep, err
	}
	if err := in.applyPlan(ctx, plan); err != nil {
		return rep, err
	}
	in.Log.Info().Int("documents", len(docs)).Str("extractor", in.Extractor.Name()).Str("embedder", in.Embedder.Model()).Msg("ingesting")
	if err := in.markStarted(ctx); err != nil {
		return rep, err
	}
	if in.changes, err = in.trackChanges(ctx); err != nil {
		return rep, err
	}

	t = time.Now()
	if err := in.documents(ctx, docs, meta, plan.checkChunks, &rep); err != nil {
		return rep, err
	}
	in.stageDone(&rep, "documents", t)
	if err := in.finishChunking(ctx, plan, &rep); err != nil {
		return rep, err
	}
	if rep.Documents == 0 && rep.Failed > 0 {
		return rep, fmt.Errorf("%w: extraction failed for all %d document(s)", ErrNothingIngested, rep.Failed)
	}

	t = time.Now()
	if rep.EntityEmbeds, err = in.embedEntities(ctx); err != nil {
		return rep, err
	}
	in.stageDone(&rep, "embed", t)

	if err := in.structure(ctx, &rep); err != nil {
		return rep, err
	}
	if err := in.recordStructure(ctx, plan); err != nil {
		return rep, err
	}
	if err := in.markFinished(ctx, &rep); err != nil {
		return rep, err
	}
	rep.Duration = time.Since(start)
	return rep, nil
}

// splitIgnored separates the inputs a run skipped from the folder entries it ignored by rule.
func splitIgnored(problems []load.Problem) (skipped, ignored []load.Problem) {
	for _, p := range problems {
		if p.Ignored {
			ignored = append(ignored, p)
		} else {
			skipped = append(skipped, p)
		}
	}
	return skipped, ignored
}

// idleReleaser is a store that can let go of what it keeps open between calls (the embedded
// store's idle SQLite connections, with their page caches).
type idleReleaser interface{ ReleaseIdle() }

// stageDone records how long a stage took and logs its end with the memory of the process: the
// Go heap in use now and the peak resident set size so far, so that a run at info level shows
// which stage the memory grew in (bench/bigdoc).
func (in *Ingester) stageDone(rep *Report, stage string, start time.Time) {
	d := time.Since(start)
	rep.StageDuration[stage] = d
	ev := in.Log.Info()
	if c, ok := in.Store.(statementCounter); ok {
		calls, elapsed := c.StatementTotal()
		st := StatementCount{Calls: calls - rep.statementsSeen.Calls, Elapsed: elapsed - rep.statementsSeen.Elapsed}
		rep.statementsSeen = StatementCount{Calls: calls, Elapsed: elapsed}
		if rep.StageStatements == nil {
			rep.StageStatements = map[string]StatementCount{}
		}
		rep.StageStatements[stage] = st
		ev = ev.Int("statements", st.Calls).Dur("statements_took", st.Elapsed)
	}
	// The stage's garbage is released before the next stage starts, so that the process's peak
	// is the larger stage's rather than two stages' piled up; the heap logged is then what the
	// stage left live. The store's idle connections go first (idleReleaser), so that the next
	// stage starts without the caches of this one's.
	if r, ok := in.Store.(idleReleaser); ok {
		r.ReleaseIdle()
	}
	in.Memory.Release()
	m := memstat.Now()
	m.Fields(ev.Str("stage", stage).Dur("took", d)).Msg("stage finished")
}
