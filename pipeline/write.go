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
	"github.com/stratarag/strata/internal/memstat"
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

// write resolves a prepared document against the store and writes it batch by batch, each batch
// in one transaction, as next hands the batches over. The document's
// sha256 is written with its last batch only: a document killed between two batches is not
// "unchanged" to the next run, which re-reads its stored chunks and goes on after them. It
// reports whether anything was written.
func (in *Ingester) write(ctx context.Context, resolver *resolve.Resolver, p prepared, next func() (docBatch, bool, error), meta map[string]string, rep *Report) (bool, error) {
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
	meta = maps.Clone(meta)
	if meta == nil {
		meta = map[string]string{}
	}
	maps.Copy(meta, sourceMeta(p))
	batches := (len(p.pieces) + in.Options.ChunkBatch - 1) / in.Options.ChunkBatch
	stale := p.stale // deleted with the first batch written
	written, chunks, entities, relations := false, 0, 0, 0
	for {
		b, ok, err := next()
		if err != nil {
			return written, err
		}
		if !ok {
			// The worker stopped before the last batch: the run is being cancelled.
			return written, ctx.Err()
		}
		if b.err != nil {
			rep.Failed++
			log.Error().Err(b.err).Int("chunks_written", chunks).Msg("document failed; a re-run retries it")
			return written, nil
		}
		out, err := resolver.Resolve(ctx, b.results, stale)
		if err != nil {
			return written, fmt.Errorf("resolve %s: %w", p.doc.ID, err)
		}
		var subject subjectChange
		if b.last {
			// A document's subject links depend on all its chunks: they are settled with its
			// last batch, in the same transaction.
			if subject, err = in.documentSubject(ctx, p, out.Mentions, b.results, stale); err != nil {
				return written, err
			}
		}
		doc := graph.Document{
			ID: p.doc.ID, Title: p.doc.Title, Source: p.doc.Source, Metadata: p.metadata,
			IngestedAt: time.Now().UTC().Truncate(time.Millisecond),
		}
		if b.last {
			doc.SHA256 = p.sha
		}
		batch := graph.Batch{
			Documents:       []graph.Document{doc},
			Chunks:          b.chunks,
			Entities:        out.Entities,
			Relations:       out.Relations,
			Mentions:        append(out.Mentions, subject.add...),
			Meta:            meta,
			DeleteChunks:    stale,
			DeleteMentions:  subject.del,
			DeleteEntities:  out.DeleteEntities,
			DeleteRelations: out.DeleteRelations,
		}
		if err := in.changes.record(ctx, in.Store, &batch); err != nil {
			return written, fmt.Errorf("write %s: %w", p.doc.ID, err)
		}
		if err := in.Store.Apply(ctx, batch); err != nil {
			return written, fmt.Errorf("write %s (chunks %d to %d): %w", p.doc.ID, b.first, b.first+b.count, err)
		}
		written = true
		rep.Chunks += len(b.chunks)
		rep.DeletedChunks += len(stale)
		rep.Entities += len(out.Entities)
		rep.Relations += len(out.Relations)
		rep.DeletedEntities += len(out.DeleteEntities)
		rep.DeletedRelations += len(out.DeleteRelations)
		stale = nil
		chunks += len(b.chunks)
		entities += len(out.Entities)
		relations += len(out.Relations)
		if batches > 1 {
			memstat.Now().Fields(log.Info().Int("batch", b.first/in.Options.ChunkBatch+1).Int("batches", batches).
				Int("chunks_done", b.first+b.count).Int("chunks_total", len(p.pieces)).
				Int("chunks", len(b.chunks)).Int("entities", len(out.Entities))).Msg("document batch written")
		}
		if b.last {
			break
		}
	}
	rep.Documents++
	if p.rechunked {
		rep.Rechunked++
		log.Info().Int("old_chunks", len(p.stale)).Int("chunks", chunks).Msg("document re-chunked with this run's chunk settings")
	} else if len(p.stale) > 0 {
		rep.Changed++
		log.Info().Int("old_chunks", len(p.stale)).Msg("document changed; its old chunks and what was extracted from them were replaced")
	}
	log.Debug().Int("chunks", chunks).Int("entities", entities).Int("relations", relations).Msg("written")
	return true, nil
}

// documentSubject settles the subject links of a document written by this run (see
// subjectLinks): added and results are what its last batch writes, stale the chunks it drops.
func (in *Ingester) documentSubject(ctx context.Context, p prepared, added []graph.Mention, results []resolve.ChunkResult, stale []string) (subjectChange, error) {
	replaced := make(map[string]bool, len(results)+len(stale))
	for _, r := range results {
		replaced[r.ChunkID] = true
	}
	for _, id := range stale {
		replaced[id] = true
	}
	ids := make([]string, len(p.pieces))
	for i, pc := range p.pieces {
		ids[i] = pc.ID
	}
	old := ""
	if p.stored != nil {
		old = p.stored.Subject()
	}
	return subjectLinks(ctx, in.Store, p.doc.ID, graph.Document{Title: p.doc.Title}.Subject(), old, ids, added, replaced)
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

// relabel rewrites the node of a document whose text and chunks are unchanged but whose title
// (naming the same subject), source or metadata are not what the store holds (a JSON Lines
// record's new title, a file stored by an older strata under a relative path): the graph built
// from its text stays as it is.
func (in *Ingester) relabel(ctx context.Context, p prepared) error {
	d := *p.stored
	d.Title, d.Source, d.Metadata = p.doc.Title, p.doc.Source, p.metadata
	// The title names the subject the stored one names: a title naming another subject makes
	// the document be extracted again (prepare), since extraction looks for it in the text.
	b := graph.Batch{Documents: []graph.Document{d}, Meta: sourceMeta(p)}
	if err := in.Store.Apply(ctx, b); err != nil {
		return fmt.Errorf("update document %s: %w", p.doc.ID, err)
	}
	in.Log.Debug().Str("document", d.ID).Msg("unchanged text; title, source or metadata updated")
	return nil
}

func sha256Hex(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}
