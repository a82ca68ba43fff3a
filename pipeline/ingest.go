// Package pipeline runs ingestion: load → chunk → extract → resolve → embed → layers →
// components → communities → reports. Each stage lives in its own package under pipeline/;
// this package orders them, runs extraction concurrently, and writes each document atomically
// so that an interrupted run resumes where it stopped.
package pipeline

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/rs/zerolog"
	"golang.org/x/sync/errgroup"

	"github.com/stratarag/strata/internal/embedding"
	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/tokenizer"
	"github.com/stratarag/strata/pipeline/chunk"
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

// prepared is a document after chunking, extraction and chunk embedding, ready to resolve and write.
type prepared struct {
	doc       load.Document
	sha       string
	chunks    []graph.Chunk // new chunks, and kept ones whose position changed
	stale     []string      // chunks of an earlier version of the document that are gone
	results   []resolve.ChunkResult
	unchanged bool
	err       error
}

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
	rep.Duration = time.Since(start)
	return rep, nil
}

// LoadDocuments loads every document under paths (see load.Walk) and resolves repeated ids
// within the inputs: the later document wins, as it would in a later run, and a warning names
// both sources. It returns the documents, the skipped inputs and the number of repeats.
func LoadDocuments(ctx context.Context, paths []string, log zerolog.Logger) ([]load.Document, []load.Problem, int, error) {
	var docs []load.Document
	seen := map[string]int{} // document id → index in docs
	dups := 0
	problems, err := load.Walk(ctx, paths, func(d load.Document) error {
		if i, dup := seen[d.ID]; dup {
			log.Warn().Str("document", d.ID).Str("source", d.Source).Str("earlier", docs[i].Source).
				Bool("same_text", d.Text == docs[i].Text).Msg("duplicate document id; keeping the later one")
			docs[i] = d
			dups++
			return nil
		}
		seen[d.ID] = len(docs)
		docs = append(docs, d)
		return nil
	})
	return docs, problems, dups, err
}

// checkEmbeddingModel refuses to mix vectors of two embedding models in one store, and returns
// the meta values to record with the first document written.
func (in *Ingester) checkEmbeddingModel(ctx context.Context) (map[string]string, error) {
	known, err := graph.CheckEmbeddingModel(ctx, in.Store, in.Embedder.Model(), in.Embedder.Dimensions())
	if err != nil {
		return nil, err
	}
	meta := map[string]string{graph.MetaExtractor: in.Extractor.Name()}
	if !known {
		meta[graph.MetaEmbeddingModel] = in.Embedder.Model()
		meta[graph.MetaEmbeddingDims] = strconv.Itoa(in.Embedder.Dimensions())
	}
	return meta, nil
}

// documents prepares documents concurrently and writes them one at a time, in input order, so the
// merged graph does not depend on scheduling.
func (in *Ingester) documents(ctx context.Context, docs []load.Document, meta map[string]string, rep *Report) error {
	if in.Progress != nil {
		in.Progress.Start(len(docs))
		defer in.Progress.Finish()
	}
	g, gctx := errgroup.WithContext(ctx)
	results := make([]chan prepared, len(docs))
	for i := range results {
		results[i] = make(chan prepared, 1)
	}
	next := make(chan int)
	g.Go(func() error {
		defer close(next)
		for i := range docs {
			select {
			case next <- i:
			case <-gctx.Done():
				return gctx.Err()
			}
		}
		return nil
	})
	for range in.Options.Concurrency {
		g.Go(func() error {
			for i := range next {
				p := in.prepare(gctx, docs[i])
				if p.err != nil && gctx.Err() != nil {
					return gctx.Err()
				}
				results[i] <- p
			}
			return nil
		})
	}
	g.Go(func() error {
		resolver := &resolve.Resolver{Store: in.Store, Tokenizer: in.Tokenizer, Summarizer: in.Summarizer}
		for i := range docs {
			var p prepared
			select {
			case p = <-results[i]:
			case <-gctx.Done():
				return gctx.Err()
			}
			written, err := in.write(gctx, resolver, p, meta, rep)
			if err != nil {
				return err
			}
			if written {
				meta = nil // recorded with the first document written
			}
			if in.Progress != nil {
				in.Progress.Add(1)
			}
		}
		return nil
	})
	return g.Wait()
}

func (in *Ingester) prepare(ctx context.Context, d load.Document) prepared {
	p := prepared{doc: d, sha: sha256Hex(d.Text)}
	stored, err := in.Store.Documents(ctx, []string{d.ID})
	if err != nil {
		p.err = fmt.Errorf("read document %s: %w", d.ID, err)
		return p
	}
	if len(stored) == 1 && stored[0].SHA256 == p.sha {
		p.unchanged = true
		return p
	}
	pieces, err := chunk.Split(in.Tokenizer, d.ID, d.Text, in.Options.Chunk)
	if err != nil {
		p.err = err
		return p
	}
	ids := make([]string, len(pieces))
	for i, pc := range pieces {
		ids[i] = pc.ID
	}
	if len(stored) == 1 {
		// The text changed: chunks of the old text that the new one does not share go.
		old, err := in.Store.DocumentChunks(ctx, d.ID)
		if err != nil {
			p.err = fmt.Errorf("read chunks of %s: %w", d.ID, err)
			return p
		}
		for _, c := range old {
			if !slices.Contains(ids, c.ID) {
				p.stale = append(p.stale, c.ID)
			}
		}
	}
	existing, err := in.Store.Chunks(ctx, ids)
	if err != nil {
		p.err = fmt.Errorf("read chunks of %s: %w", d.ID, err)
		return p
	}
	have := make(map[string]graph.Chunk, len(existing))
	for _, c := range existing {
		have[c.ID] = c
	}
	var texts []string
	var moved []graph.Chunk
	for _, pc := range pieces {
		if c, ok := have[pc.ID]; ok {
			if c.Seq != pc.Seq {
				// Same passage at another position of a changed document: rewritten with its
				// new Seq (for the NEXT chain), not extracted again.
				c.Seq = pc.Seq
				moved = append(moved, c)
			}
			continue
		}
		res, err := in.Extractor.Extract(ctx, pc.Text)
		if err != nil {
			p.err = fmt.Errorf("extract chunk %d of %s: %w", pc.Seq, d.ID, err)
			return p
		}
		p.results = append(p.results, resolve.ChunkResult{ChunkID: pc.ID, Result: res})
		p.chunks = append(p.chunks, graph.Chunk{ID: pc.ID, DocumentID: d.ID, Seq: pc.Seq, Text: pc.Text, Tokens: pc.Tokens})
		texts = append(texts, pc.Text)
	}
	vecs, err := in.embed(ctx, texts)
	if err != nil {
		p.err = fmt.Errorf("embed chunks of %s: %w", d.ID, err)
		return p
	}
	for i := range p.chunks {
		p.chunks[i].Embedding = vecs[i]
	}
	p.chunks = append(p.chunks, moved...)
	return p
}

// write resolves a prepared document against the store and applies it in one batch. It reports
// whether anything was written.
func (in *Ingester) write(ctx context.Context, resolver *resolve.Resolver, p prepared, meta map[string]string, rep *Report) (bool, error) {
	log := in.Log.With().Str("document", p.doc.ID).Logger()
	switch {
	case p.err != nil:
		rep.Failed++
		log.Error().Err(p.err).Msg("document failed; a re-run retries it")
		return false, nil
	case p.unchanged:
		rep.Unchanged++
		log.Debug().Msg("unchanged")
		return false, nil
	}
	out, err := resolver.Resolve(ctx, p.results)
	if err != nil {
		return false, fmt.Errorf("resolve %s: %w", p.doc.ID, err)
	}
	metadata := "{}"
	if p.doc.Metadata != nil {
		b, err := json.Marshal(p.doc.Metadata)
		if err != nil {
			return false, fmt.Errorf("encode metadata of %s: %w", p.doc.ID, err)
		}
		metadata = string(b)
	}
	meta = maps.Clone(meta)
	if meta == nil {
		meta = map[string]string{}
	}
	meta[graph.MetaStructureStale] = "true"
	batch := graph.Batch{
		Documents: []graph.Document{{
			ID: p.doc.ID, Title: p.doc.Title, Source: p.doc.Source, SHA256: p.sha,
			Metadata: metadata, IngestedAt: time.Now().UTC().Truncate(time.Millisecond),
		}},
		Chunks:       p.chunks,
		Entities:     out.Entities,
		Relations:    out.Relations,
		Mentions:     out.Mentions,
		Meta:         meta,
		DeleteChunks: p.stale,
	}
	if err := in.Store.Apply(ctx, batch); err != nil {
		return false, fmt.Errorf("write %s: %w", p.doc.ID, err)
	}
	rep.Documents++
	rep.Chunks += len(p.chunks)
	if len(p.stale) > 0 {
		rep.Changed++
		rep.DeletedChunks += len(p.stale)
		log.Info().Int("old_chunks", len(p.stale)).Msg("document changed; its old chunks were replaced (what was extracted from them stays in the graph)")
	}
	rep.Entities += len(out.Entities)
	rep.Relations += len(out.Relations)
	log.Debug().Int("chunks", len(p.chunks)).Int("entities", len(out.Entities)).Int("relations", len(out.Relations)).Msg("written")
	return true, nil
}

// embedEntities embeds every layer-0 entity that has no embedding (new, or whose description
// changed), from its name, type and description.
func (in *Ingester) embedEntities(ctx context.Context) (int, error) {
	entities, err := in.Store.EntitiesByLayer(ctx, 0)
	if err != nil {
		return 0, fmt.Errorf("read entities to embed: %w", err)
	}
	var todo []graph.Entity
	for _, e := range entities {
		if len(e.Embedding) == 0 {
			todo = append(todo, e)
		}
	}
	size := in.Options.EmbedBatch
	for startAt := 0; startAt < len(todo); startAt += size {
		part := todo[startAt:min(startAt+size, len(todo))]
		texts := make([]string, len(part))
		for i, e := range part {
			texts[i] = e.EmbeddingText()
		}
		vecs, err := in.embed(ctx, texts)
		if err != nil {
			return startAt, fmt.Errorf("embed entities: %w", err)
		}
		for i := range part {
			part[i].Embedding = vecs[i]
		}
		if err := in.Store.Apply(ctx, graph.Batch{Entities: part}); err != nil {
			return startAt, fmt.Errorf("write entity embeddings: %w", err)
		}
	}
	if len(todo) > 0 {
		in.Log.Info().Int("entities", len(todo)).Msg("embedded entities")
	}
	return len(todo), nil
}

func (in *Ingester) embed(ctx context.Context, texts []string) ([][]float32, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	vecs, err := in.Embedder.Embed(ctx, texts)
	if err != nil {
		return nil, err
	}
	if len(vecs) != len(texts) {
		return nil, fmt.Errorf("embedder returned %d vectors for %d texts", len(vecs), len(texts))
	}
	return vecs, nil
}

// structure runs the graph-wide stages when the graph changed since they last completed: the
// hierarchical index, WCC, Leiden, reports. Re-running them after an interruption costs little: Leiden is seeded, so the
// communities come out the same, and model-written reports come from the response cache.
func (in *Ingester) structure(ctx context.Context, rep *Report) error {
	stale, _, err := in.Store.Meta(ctx, graph.MetaStructureStale)
	if err != nil {
		return fmt.Errorf("read store metadata: %w", err)
	}
	if stale != "true" {
		in.Log.Info().Msg("graph unchanged; communities are up to date")
		return nil
	}
	t := time.Now()
	if in.LayerSummarizer != nil && in.Options.Layers.MaxLayers > 0 {
		b := &layers.Builder{
			Store: in.Store, Embedder: in.Embedder, Summarizer: in.LayerSummarizer, Log: in.Log,
			Options: in.Options.Layers, Seed: in.Options.Seed,
		}
		if rep.Layers, err = b.Build(ctx); err != nil {
			return fmt.Errorf("hierarchical index: %w", err)
		}
		rep.StageDuration["layers"] = time.Since(t)
		for _, l := range rep.Layers {
			in.Log.Info().Int("layer", l.Layer).Int("members", l.Members).Int("clusters", l.Clusters).
				Int("summaries", l.Summaries).Float64("sparsity", l.Sparsity).Msg("summary layer built")
		}
		t = time.Now()
	}
	if rep.Components, err = in.Store.ComputeComponents(ctx); err != nil {
		return fmt.Errorf("components: %w", err)
	}
	rep.StageDuration["components"] = time.Since(t)
	t = time.Now()
	leiden := graph.DefaultLeidenParams()
	leiden.Seed = in.Options.Seed
	communities, err := in.Store.ComputeCommunities(ctx, leiden)
	if err != nil {
		return fmt.Errorf("communities: %w", err)
	}
	rep.Communities = len(communities)
	rep.StageDuration["communities"] = time.Since(t)
	in.Log.Info().Int("components", rep.Components).Int("communities", rep.Communities).Msg("graph structure computed")
	if in.Reporter != nil {
		t = time.Now()
		if err := in.Reporter.Reports(ctx, in.Store, communities); err != nil {
			return fmt.Errorf("community reports: %w", err)
		}
		rep.StageDuration["reports"] = time.Since(t)
	}
	if err := in.Store.Apply(ctx, graph.Batch{Meta: map[string]string{graph.MetaStructureStale: "false"}}); err != nil {
		return fmt.Errorf("record the finished structure: %w", err)
	}
	return nil
}

// Reporter writes community reports for freshly computed communities.
type Reporter interface {
	Reports(ctx context.Context, store graph.ReadWriter, communities []graph.Community) error
}

func sha256Hex(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}
