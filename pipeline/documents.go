package pipeline

import (
	"context"
	"fmt"
	"slices"

	"github.com/rs/zerolog"
	"golang.org/x/sync/errgroup"

	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/pipeline/chunk"
	"github.com/stratarag/strata/pipeline/load"
	"github.com/stratarag/strata/pipeline/resolve"
)

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
