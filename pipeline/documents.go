package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/rs/zerolog"
	"golang.org/x/sync/errgroup"

	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/llm"
	"github.com/stratarag/strata/pipeline/chunk"
	"github.com/stratarag/strata/pipeline/extract"
	"github.com/stratarag/strata/pipeline/load"
	"github.com/stratarag/strata/pipeline/resolve"
)

// LoadDocuments loads every document under paths (see load.Walk for the id rule). An input
// reached twice in one run (a file named twice, or through a folder and directly) is loaded once;
// it returns the documents, the skipped inputs and the number of repeats left out. Ids are not
// checked here: Run first gives files the ids the store holds for them.
func LoadDocuments(ctx context.Context, paths []string, log zerolog.Logger) ([]load.Document, []load.Problem, int, error) {
	var docs []load.Document
	seen := map[string]bool{} // load.Document.Source
	repeats := 0
	problems, err := load.Walk(ctx, paths, func(d load.Document) error {
		if seen[d.Source] {
			log.Info().Str("source", d.Source).Str("document", d.ID).Msg("input reached twice in this run; loaded once")
			repeats++
			return nil
		}
		seen[d.Source] = true
		docs = append(docs, d)
		return nil
	})
	return docs, problems, repeats, err
}

// documents prepares documents concurrently and writes them in input order, so the merged graph
// does not depend on scheduling: consecutive small documents (a batch of chunks or fewer) in one
// transaction of at most Options.ChunkBatch chunks, a larger one batch by batch.
//
// checkChunks compares each document's stored chunks with the chunks this run cuts, so that a
// document whose text is unchanged is re-chunked all the same when the chunk settings changed.
func (in *Ingester) documents(ctx context.Context, docs []load.Document, meta map[string]string, checkChunks bool, rep *Report) error {
	stored, err := in.storedDocuments(ctx, docs)
	if err != nil {
		return err
	}
	if in.Progress != nil {
		in.Progress.Start(len(docs))
		defer in.Progress.Finish()
	}
	g, gctx := errgroup.WithContext(ctx)
	results := make([]chan prepared, len(docs))
	for i := range results {
		results[i] = make(chan prepared, 1)
	}
	next := make(chan []int)
	g.Go(func() error {
		defer close(next)
		for _, unit := range in.extractionUnits(docs) {
			select {
			case next <- unit:
			case <-gctx.Done():
				return gctx.Err()
			}
		}
		return nil
	})
	for range in.Options.Concurrency {
		g.Go(func() error {
			for unit := range next {
				if len(unit) > 1 {
					if err := in.extractPacked(gctx, docs, unit, stored, checkChunks, results); err != nil {
						return err
					}
					continue
				}
				i := unit[0]
				p := in.prepare(gctx, docs[i], stored[docs[i].ID], checkChunks)
				if p.err != nil && gctx.Err() != nil {
					return gctx.Err()
				}
				results[i] <- p
				if p.batches != nil {
					if err := in.extractBatches(gctx, p, in.extractOne); err != nil {
						return err
					}
				}
			}
			return nil
		})
	}
	// Carry: a document's batches add evidence after what the batches before them wrote. A
	// failed write ends the run, so the resolver never outlives an unwritten Output. Defer: a
	// description past the budget is merged by the model once, after the last batch
	// (condenseDeferred), not at every batch that adds to it.
	resolver := &resolve.Resolver{Store: in.Store, Tokenizer: in.Tokenizer, Summarizer: in.Summarizer, Carry: true}
	if in.Summarizer != nil {
		var err error
		if in.deferred, err = readDeferred(ctx, in.Store); err != nil {
			return err
		}
		resolver.Defer = true
	}
	g.Go(func() error {
		src := newBatchSource(in, results)
		var group []docPart // consecutive small documents, written in one transaction
		size := 0           // their chunks
		flush := func() error {
			if len(group) == 0 {
				return nil
			}
			if err := in.writeParts(gctx, resolver, group, meta, rep); err != nil {
				return err
			}
			meta = nil // recorded with the first documents written
			if in.Progress != nil {
				in.Progress.Add(len(group))
			}
			group, size = nil, 0
			return nil
		}
		for i := range docs {
			p, err := src.doc(gctx, i)
			if err != nil {
				return err
			}
			if small := p.err == nil && !p.unchanged && len(p.pieces) <= in.Options.ChunkBatch; small {
				// A group holds at most a batch's worth of chunks; where it ends depends on
				// the documents alone, not on how fast they are extracted.
				if size+len(p.pieces) > in.Options.ChunkBatch {
					if err := flush(); err != nil {
						return err
					}
				}
				b, ok, err := src.next(gctx, i)
				switch {
				case err != nil:
					return err
				case !ok:
					// The worker stopped before the batch: the run is being cancelled.
					return gctx.Err()
				}
				src.finish(i)
				if stopsRun(b.err) {
					// The documents before it were extracted with calls already paid for:
					// they are written, and the run ends where a re-run resumes.
					if err := flush(); err != nil {
						return err
					}
					return b.err
				}
				if b.err != nil {
					rep.Failed++
					in.Log.Error().Err(b.err).Str("document", p.doc.ID).Msg("document failed; a re-run retries it")
					if in.Progress != nil {
						in.Progress.Add(1)
					}
					continue
				}
				group = append(group, docPart{p: p, b: b, stale: p.stale})
				size += len(p.pieces)
				continue
			}
			if !p.unchanged || p.relabel {
				// Writes stay in input order.
				if err := flush(); err != nil {
					return err
				}
			}
			written, err := in.write(gctx, resolver, p, func() (docBatch, bool, error) { return src.next(gctx, i) }, meta, rep)
			if err != nil {
				return err
			}
			src.finish(i)
			if written {
				meta = nil // recorded with the first document written
			}
			if in.Progress != nil {
				in.Progress.Add(1)
			}
		}
		return flush()
	})
	if err := g.Wait(); err != nil {
		return err
	}
	return in.condenseDeferred(ctx, resolver, in.deferred)
}

// stopsRun reports whether a document's failure ends the whole run rather than that document
// alone: a spent token budget (llm.ErrBudgetSpent) fails every call after it, so going on would
// only mark every later document failed, and a batch job that expired or failed
// (llm.ErrBatchUnanswered) failed the calls of other documents too. The run stops as an
// interrupted one does, and the same command resumes it.
func stopsRun(err error) bool {
	return errors.Is(err, llm.ErrBudgetSpent) || errors.Is(err, llm.ErrBatchUnanswered)
}

// prepared is a document after chunking and comparison with its stored chunks. A document to
// write comes with its batches: consecutive runs of Options.ChunkBatch pieces, extracted by the
// worker that prepared it while the writer resolves and writes the previous one, and embedded
// across documents by the writer's batchSource.
type prepared struct {
	doc      load.Document
	sha      string
	metadata string          // doc.Metadata as stored: a JSON object
	stored   *graph.Document // the stored version of the document, nil for a new one
	pieces   []chunk.Piece   // the document's chunks as this run cuts them
	// have is the stored chunks of the document by id: those with the same Seq are not written
	// again (an unchanged passage, or a batch written before the run was killed), those at
	// another Seq are rewritten in place.
	have      map[string]graph.Chunk
	stale     []string      // chunks of an earlier version of the document that are gone
	batches   chan docBatch // nil when there is nothing to write; closed after the last batch
	unchanged bool
	rechunked bool // same text, cut again with other chunk settings
	// relabel: an unchanged document whose title, source or metadata changed; only its node is
	// rewritten.
	relabel bool
	// releasedSource is the file whose stored id this document takes over (Options.Replace):
	// its graph.MetaSourcePrefix key is cleared.
	releasedSource string
	err            error
}

// storedDocuments reads the stored versions of docs in a few statements rather than one per
// document: on Neo4j each read is a round trip that competes with the writes for the server.
// Nothing else writes documents while the run holds the store's lease.
func (in *Ingester) storedDocuments(ctx context.Context, docs []load.Document) (map[string]*graph.Document, error) {
	const batch = 500
	stored := make(map[string]*graph.Document)
	for start := 0; start < len(docs); start += batch {
		part := docs[start:min(start+batch, len(docs))]
		ids := make([]string, len(part))
		for i, d := range part {
			ids[i] = d.ID
		}
		got, err := in.Store.Documents(ctx, ids)
		if err != nil {
			return nil, fmt.Errorf("read stored documents: %w", err)
		}
		for i := range got {
			stored[got[i].ID] = &got[i]
		}
	}
	return stored, nil
}

// prepare chunks a document and compares it with stored, its stored version (nil for a new one).
func (in *Ingester) prepare(ctx context.Context, d load.Document, stored *graph.Document, checkChunks bool) prepared {
	p := prepared{doc: d, sha: sha256Hex(d.Text), metadata: "{}"}
	if d.Metadata != nil {
		b, err := json.Marshal(d.Metadata)
		if err != nil {
			p.err = fmt.Errorf("encode metadata of %s: %w", d.ID, err)
			return p
		}
		p.metadata = string(b)
	}
	if stored != nil {
		p.stored = stored
		if err := in.released(ctx, &p); err != nil {
			p.err = err
			return p
		}
	}
	// A title that names another subject changes what extraction looks for in the text
	// (extract.NameSubject): every chunk is extracted again, as if the text had changed.
	resubject := p.stored != nil && p.stored.Subject() != (graph.Document{Title: d.Title}).Subject()
	if p.stored != nil && p.stored.SHA256 == p.sha && !checkChunks && !resubject {
		p.unchanged = true
		p.relabel = p.stored.Title != d.Title || p.stored.Source != d.Source || p.stored.Metadata != p.metadata
		return p
	}
	pieces, err := chunk.Split(in.Tokenizer, d.ID, d.Text, in.Options.Chunk)
	if err != nil {
		p.err = err
		return p
	}
	ids := make(map[string]bool, len(pieces))
	for _, pc := range pieces {
		ids[pc.ID] = true
	}
	var old []graph.Chunk
	if p.stored != nil {
		if old, err = in.Store.DocumentChunks(ctx, d.ID); err != nil {
			p.err = fmt.Errorf("read chunks of %s: %w", d.ID, err)
			return p
		}
	}
	if p.stored != nil && p.stored.SHA256 == p.sha && !resubject {
		if sameChunks(old, pieces) {
			p.unchanged = true
			p.relabel = p.stored.Title != d.Title || p.stored.Source != d.Source || p.stored.Metadata != p.metadata
			return p
		}
		p.rechunked = true
	}
	// The text changed, or its chunks were cut otherwise: chunks the new ones do not share go.
	for _, c := range old {
		if !ids[c.ID] || resubject {
			p.stale = append(p.stale, c.ID)
		}
	}
	p.have = make(map[string]graph.Chunk, len(old))
	for _, c := range old {
		if !resubject {
			p.have[c.ID] = c
		}
	}
	p.pieces = pieces
	p.batches = make(chan docBatch)
	return p
}

// docBatch is one batch of a document: its new chunks (extracted, one result each, and embedded
// by the batchSource) and kept ones whose position changed.
type docBatch struct {
	first, count int           // pieces[first:first+count]
	last         bool          // the document's last batch: it records the document's sha256
	chunks       []graph.Chunk // new chunks, then moved ones
	results      []resolve.ChunkResult
	err          error
}

// extractOne extracts one piece with the extractor.
func (in *Ingester) extractOne(ctx context.Context, pc chunk.Piece) (extract.Result, error) {
	return in.Extractor.Extract(ctx, pc.Text)
}

// extractionUnits lists the documents the workers take at once, in input order: one at a time,
// or, with an extractor that packs (extract.Packer), consecutive short documents together as
// extract.Packs groups them by the size of their text (a deterministic rule, so a re-run
// sends the same calls and the response cache answers them).
func (in *Ingester) extractionUnits(docs []load.Document) [][]int {
	if p, ok := in.Extractor.(extract.Packer); !ok || !p.Packs() {
		units := make([][]int, len(docs))
		for i := range docs {
			units[i] = []int{i}
		}
		return units
	}
	// A pack holds about one chunk's worth of text; a document of more than half a chunk goes
	// alone. Only short documents are counted: a text of more than eight bytes per token of a
	// chunk (prose runs four) goes alone uncounted; packing it would only save a call.
	limit := in.Options.Chunk.Size
	sizes := make([]int, len(docs))
	for i, d := range docs {
		if len(d.Text) > 8*limit {
			sizes[i] = len(d.Text)
			continue
		}
		sizes[i] = in.Tokenizer.Count(d.Text)
	}
	return extract.Packs(sizes, limit/4, limit/2)
}

// extractPacked prepares the documents of unit (short ones, a chunk each), extracts their new
// chunks in one packed call, and hands each document's batch to the writer in order. A failed
// call fails every document of the pack, as a failed chunk fails its document.
func (in *Ingester) extractPacked(ctx context.Context, docs []load.Document, unit []int, stored map[string]*graph.Document, checkChunks bool, results []chan prepared) error {
	ps := make([]prepared, 0, len(unit))
	var texts, ids []string
	for _, i := range unit {
		p := in.prepare(ctx, docs[i], stored[docs[i].ID], checkChunks)
		if p.err != nil && ctx.Err() != nil {
			return ctx.Err()
		}
		results[i] <- p
		if p.batches == nil {
			continue
		}
		ps = append(ps, p)
		for _, pc := range p.pieces {
			if _, ok := p.have[pc.ID]; !ok {
				texts, ids = append(texts, pc.Text), append(ids, pc.ID)
			}
		}
	}
	found := make(map[string]extract.Result, len(ids))
	var packErr error
	if len(texts) > 0 {
		res, err := in.Extractor.(extract.Packer).ExtractPack(ctx, texts)
		if err != nil && ctx.Err() != nil {
			return ctx.Err()
		}
		packErr = err
		for n, id := range ids {
			if err == nil {
				found[id] = res[n]
			}
		}
	}
	for _, p := range ps {
		err := in.extractBatches(ctx, p, func(_ context.Context, pc chunk.Piece) (extract.Result, error) {
			if packErr != nil {
				return extract.Result{}, packErr
			}
			return found[pc.ID], nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// extractBatches extracts the document's pieces batch by batch with extractOne and hands each
// batch to the writer, closing p.batches after the last one or after a failed one. Batches are
// cut at fixed piece positions, so a resumed run cuts the batches a killed run cut; a batch with
// nothing to write (stored by an earlier run) is not sent, except the last.
func (in *Ingester) extractBatches(ctx context.Context, p prepared, extractOne func(context.Context, chunk.Piece) (extract.Result, error)) error {
	defer close(p.batches)
	size := in.Options.ChunkBatch
	for first := 0; first < len(p.pieces) || first == 0; first += size {
		n := min(size, len(p.pieces)-first)
		b := docBatch{first: first, count: n, last: first+n >= len(p.pieces)}
		b.err = in.extractBatch(ctx, p, p.pieces[first:first+n], &b, extractOne)
		if b.err != nil && ctx.Err() != nil {
			return ctx.Err()
		}
		if len(b.chunks) == 0 && !b.last && b.err == nil {
			continue
		}
		select {
		case p.batches <- b:
		case <-ctx.Done():
			return ctx.Err()
		}
		if b.err != nil {
			return nil
		}
	}
	return nil
}

func (in *Ingester) extractBatch(ctx context.Context, p prepared, pieces []chunk.Piece, b *docBatch, extractOne func(context.Context, chunk.Piece) (extract.Result, error)) error {
	var moved []graph.Chunk
	subject := graph.Document{Title: p.doc.Title}.Subject()
	results := make([]*extract.Result, len(pieces)) // nil: stored, not extracted
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(in.Options.ChunkConcurrency, 1))
	for i, pc := range pieces {
		if c, ok := p.have[pc.ID]; ok {
			first, last := piecePages(p.doc.Pages, pc)
			if c.Seq != pc.Seq || c.FirstPage != first || c.LastPage != last {
				// Same passage at another position of a changed document: rewritten with its
				// new Seq (for the NEXT chain) and pages, not extracted again.
				c.Seq, c.FirstPage, c.LastPage = pc.Seq, first, last
				moved = append(moved, c)
			}
			continue
		}
		g.Go(func() error {
			res, err := extractOne(gctx, pc)
			if err != nil {
				return fmt.Errorf("extract chunk %d of %s: %w", pc.Seq, p.doc.ID, err)
			}
			res = extract.NameSubject(res, pc.Text, subject)
			results[i] = &res
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	for i, pc := range pieces {
		if results[i] == nil {
			continue
		}
		b.results = append(b.results, resolve.ChunkResult{ChunkID: pc.ID, DocumentID: p.doc.ID, Seq: pc.Seq, Result: *results[i]})
		first, last := piecePages(p.doc.Pages, pc)
		b.chunks = append(b.chunks, graph.Chunk{ID: pc.ID, DocumentID: p.doc.ID, Seq: pc.Seq, Text: pc.Text, Tokens: pc.Tokens,
			FirstPage: first, LastPage: last})
	}
	b.chunks = append(b.chunks, moved...)
	return nil
}

// piecePages returns the first and last page a piece's text lies on, 0 and 0 for a document
// without pages. White space at the window's edges is left out: a window that begins with the
// blank line closing the page before (or ends with the one opening the next) is not on it.
func piecePages(pages []int, pc chunk.Piece) (first, last int) {
	start := pc.Start + len(pc.Text) - len(strings.TrimLeftFunc(pc.Text, unicode.IsSpace))
	end := pc.Start + len(strings.TrimRightFunc(pc.Text, unicode.IsSpace))
	if end <= start { // a window of white space alone keeps its whole span
		start, end = pc.Start, pc.End
	}
	span := load.PageSpan(pages, start, end)
	if len(span) == 0 {
		return 0, 0
	}
	return span[0], span[len(span)-1]
}

// sameChunks reports whether the stored chunks of a document are the pieces, in order.
func sameChunks(stored []graph.Chunk, pieces []chunk.Piece) bool {
	if len(stored) != len(pieces) {
		return false
	}
	for i, c := range stored {
		if c.ID != pieces[i].ID || c.Seq != pieces[i].Seq {
			return false
		}
	}
	return true
}

// released notes, when this document takes over an id stored for another text file
// (Options.Replace), that file's source key must be cleared: it no longer names this id.
func (in *Ingester) released(ctx context.Context, p *prepared) error {
	old := p.stored.Source
	if old == p.doc.Source || sameSource(old, p.doc) {
		return nil
	}
	id, ok, err := in.Store.Meta(ctx, graph.MetaSourcePrefix+old)
	if err != nil {
		return fmt.Errorf("read the stored id of %s: %w", old, err)
	}
	if ok && id == p.doc.ID {
		p.releasedSource = old
	}
	return nil
}
