package pipeline

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
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
	case p.unchanged && p.relabel:
		rep.Unchanged++
		rep.Relabeled++
		return false, in.relabel(ctx, p)
	case p.unchanged:
		rep.Unchanged++
		log.Debug().Msg("unchanged")
		return false, nil
	}
	out, err := resolver.Resolve(ctx, withSubject(p.results, graph.Document{Title: p.doc.Title}.Subject()))
	if err != nil {
		return false, fmt.Errorf("resolve %s: %w", p.doc.ID, err)
	}
	meta = maps.Clone(meta)
	if meta == nil {
		meta = map[string]string{}
	}
	meta[graph.MetaStructureStale] = "true"
	maps.Copy(meta, sourceMeta(p))
	batch := graph.Batch{
		Documents: []graph.Document{{
			ID: p.doc.ID, Title: p.doc.Title, Source: p.doc.Source, SHA256: p.sha,
			Metadata: p.metadata, IngestedAt: time.Now().UTC().Truncate(time.Millisecond),
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
	rep.DeletedChunks += len(p.stale)
	if p.rechunked {
		rep.Rechunked++
		log.Info().Int("old_chunks", len(p.stale)).Int("chunks", len(p.chunks)).Msg("document re-chunked with this run's chunk settings")
	} else if len(p.stale) > 0 {
		rep.Changed++
		log.Info().Int("old_chunks", len(p.stale)).Msg("document changed; its old chunks were replaced (what was extracted from them stays in the graph)")
	}
	rep.Entities += len(out.Entities)
	rep.Relations += len(out.Relations)
	log.Debug().Int("chunks", len(p.chunks)).Int("entities", len(out.Entities)).Int("relations", len(out.Relations)).Msg("written")
	return true, nil
}

// sourceMeta is the graph.MetaSourcePrefix keys a document's write sets: its file's id, and the
// release of the file whose id it took over.
func sourceMeta(p prepared) map[string]string {
	meta := map[string]string{}
	if p.doc.Line == 0 {
		meta[graph.MetaSourcePrefix+p.doc.File] = p.doc.ID
	}
	if p.releasedSource != "" {
		meta[graph.MetaSourcePrefix+p.releasedSource] = ""
	}
	return meta
}

// relabel rewrites the node of a document whose text and chunks are unchanged but whose title,
// source or metadata are not what the store holds (a JSON Lines record's new title, a file stored
// by an older strata under a relative path): the graph built from its text stays as it is.
func (in *Ingester) relabel(ctx context.Context, p prepared) error {
	d := *p.stored
	d.Title, d.Source, d.Metadata = p.doc.Title, p.doc.Source, p.metadata
	if err := in.Store.Apply(ctx, graph.Batch{Documents: []graph.Document{d}, Meta: sourceMeta(p)}); err != nil {
		return fmt.Errorf("update document %s: %w", p.doc.ID, err)
	}
	in.Log.Debug().Str("document", d.ID).Msg("unchanged text; title, source or metadata updated")
	return nil
}

func sha256Hex(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}
