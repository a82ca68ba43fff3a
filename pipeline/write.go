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

// docPart is one batch of one document, to be written in a transaction with other parts.
type docPart struct {
	p     prepared
	b     docBatch
	stale []string // the document's chunks that go: with its first batch written only
}

// write writes a prepared document that is not part of a group (see documents): batch by
// batch, each batch in one transaction, as next hands the batches over. The document's sha256
// is written with its last batch only: a document killed between two batches is not
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
	batches := (len(p.pieces) + in.Options.ChunkBatch - 1) / in.Options.ChunkBatch
	stale := p.stale // deleted with the first batch written
	written, chunks := false, 0
	for {
		b, ok, err := next()
		if err != nil {
			return written, err
		}
		if !ok {
			// The worker stopped before the last batch: the run is being cancelled.
			return written, ctx.Err()
		}
		if stopsRun(b.err) {
			return written, b.err // its batches written so far are kept, as after an interruption
		}
		if b.err != nil {
			rep.Failed++
			log.Error().Err(b.err).Int("chunks_written", chunks).Msg("document failed; a re-run retries it")
			return written, nil
		}
		if err := in.writeParts(ctx, resolver, []docPart{{p: p, b: b, stale: stale}}, meta, rep); err != nil {
			return written, err
		}
		written, meta, stale = true, nil, nil
		chunks += len(b.chunks)
		if batches > 1 {
			memstat.Now().Fields(log.Info().Int("batch", b.first/in.Options.ChunkBatch+1).Int("batches", batches).
				Int("chunks_done", b.first+b.count).Int("chunks_total", len(p.pieces)).
				Int("chunks", len(b.chunks))).Msg("document batch written")
		}
		if b.last {
			return true, nil
		}
	}
}

// writeParts resolves the parts together and writes them in one transaction: several small
// documents at once (a transaction per document was most of an ingest into Neo4j), or one
// batch of a large one. Evidence is merged in document id, then chunk order whatever the
// transactions, so the graph does not depend on how documents are grouped. meta is written
// with the parts.
func (in *Ingester) writeParts(ctx context.Context, resolver *resolve.Resolver, parts []docPart, meta map[string]string, rep *Report) error {
	var results []resolve.ChunkResult
	var stale []string
	for _, pt := range parts {
		results = append(results, pt.b.results...)
		stale = append(stale, pt.stale...)
	}
	ids := parts[0].p.doc.ID
	if len(parts) > 1 {
		ids = fmt.Sprintf("%s and %d more documents", ids, len(parts)-1)
	}
	out, err := resolver.Resolve(ctx, results, stale)
	if err != nil {
		return fmt.Errorf("resolve %s: %w", ids, err)
	}
	batch := graph.Batch{
		Entities:        out.Entities,
		Relations:       out.Relations,
		Mentions:        out.Mentions,
		Meta:            maps.Clone(meta),
		DeleteChunks:    stale,
		DeleteEntities:  out.DeleteEntities,
		DeleteRelations: out.DeleteRelations,
	}
	if batch.Meta == nil {
		batch.Meta = map[string]string{}
	}
	now := time.Now().UTC().Truncate(time.Millisecond)
	for _, pt := range parts {
		p := pt.p
		if pt.b.last {
			// A document's subject links depend on all its chunks: they are settled with its
			// last batch, in the same transaction.
			subject, err := in.documentSubject(ctx, p, mentionsOf(out.Mentions, p.doc.ID), pt.b.results, pt.stale)
			if err != nil {
				return err
			}
			batch.Mentions = append(batch.Mentions, subject.add...)
			batch.DeleteMentions = append(batch.DeleteMentions, subject.del...)
		}
		doc := graph.Document{ID: p.doc.ID, Title: p.doc.Title, Source: p.doc.Source, Metadata: p.metadata, IngestedAt: now}
		if pt.b.last {
			doc.SHA256 = p.sha
		}
		batch.Documents = append(batch.Documents, doc)
		batch.Chunks = append(batch.Chunks, pt.b.chunks...)
		maps.Copy(batch.Meta, sourceMeta(p))
	}
	if err := in.changes.record(ctx, in.Store, &batch); err != nil {
		return fmt.Errorf("write %s: %w", ids, err)
	}
	in.deferred.record(out, &batch)
	if err := in.Store.Apply(ctx, batch); err != nil {
		if len(parts) == 1 {
			b := parts[0].b
			return fmt.Errorf("write %s (chunks %d to %d): %w", ids, b.first, b.first+b.count, err)
		}
		return fmt.Errorf("write %s: %w", ids, err)
	}
	rep.Chunks += len(batch.Chunks)
	for _, c := range batch.Chunks {
		rep.ChunkTokens += c.Tokens
	}
	rep.DeletedChunks += len(stale)
	rep.Entities += len(out.Entities)
	rep.Relations += len(out.Relations)
	rep.DeletedEntities += len(out.DeleteEntities)
	rep.DeletedRelations += len(out.DeleteRelations)
	for _, pt := range parts {
		if !pt.b.last {
			continue
		}
		p, log := pt.p, in.Log.With().Str("document", pt.p.doc.ID).Logger()
		rep.Documents++
		if p.rechunked {
			rep.Rechunked++
			log.Info().Int("old_chunks", len(p.stale)).Int("chunks", len(p.pieces)).Msg("document re-chunked with this run's chunk settings")
		} else if len(p.stale) > 0 {
			rep.Changed++
			log.Info().Int("old_chunks", len(p.stale)).Msg("document changed; its old chunks and what was extracted from them were replaced")
		}
		log.Debug().Int("chunks", len(p.pieces)).Int("written_with", len(parts)-1).Msg("written")
	}
	return nil
}

// mentionsOf is the mentions of one document's chunks.
func mentionsOf(ms []graph.Mention, docID string) []graph.Mention {
	var out []graph.Mention
	for _, m := range ms {
		if m.DocumentID == docID {
			out = append(out, m)
		}
	}
	return out
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
