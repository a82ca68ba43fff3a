package pipeline

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"strconv"
	"time"

	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/pipeline/resolve"
)

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
	out, err := resolver.Resolve(ctx, withSubject(p.results, graph.Document{Title: p.doc.Title}.Subject()))
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

func sha256Hex(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}
