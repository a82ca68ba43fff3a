package pipeline

import (
	"context"
	"fmt"
	"time"
)

// embedLinger is how long the batchSource waits for another batch to embed with those it has.
// Offline extraction hands a document over in a few milliseconds; a model takes seconds.
const embedLinger = 25 * time.Millisecond

// batchSource hands the writer the prepared documents and their batches in input order, with
// the new chunks embedded. It embeds across documents: a batch whose chunks have no vectors yet
// is embedded together with the batches of the documents after it, received ahead, until
// Options.EmbedBatch texts or Options.EmbedTokens tokens (one request each for a model, so that
// small documents share requests), or until none comes within embedLinger. Only the
// writer calls it.
//
// Writes stay per document batch, in order. The linger keeps resuming as it was: where
// extraction is slow (a model), batches are not held back waiting for others, so a killed run
// loses no more than before; where it is fast, a request fills up within a few milliseconds.
type batchSource struct {
	in      *Ingester
	results []chan prepared
	docs    []prepared
	got     int // documents received from results
	queued  [][]docBatch
	front   int    // the first document whose batches are not all received
	done    []bool // documents the writer is through with: their batches are dropped
}

func newBatchSource(in *Ingester, results []chan prepared) *batchSource {
	n := len(results)
	return &batchSource{in: in, results: results, docs: make([]prepared, n), queued: make([][]docBatch, n), done: make([]bool, n)}
}

// doc returns document i, receiving the documents before it first.
func (s *batchSource) doc(ctx context.Context, i int) (prepared, error) {
	for s.got <= i {
		select {
		case s.docs[s.got] = <-s.results[s.got]:
			s.got++
		case <-ctx.Done():
			return prepared{}, ctx.Err()
		}
	}
	return s.docs[i], nil
}

// receive receives the next batch of the first document whose batches are not all received,
// and reports false when every document's are, or when linger is not nil and fires first.
func (s *batchSource) receive(ctx context.Context, linger <-chan time.Time) (bool, error) {
	for s.front < len(s.results) {
		if s.got == s.front {
			select {
			case s.docs[s.got] = <-s.results[s.got]:
				s.got++
			case <-linger:
				return false, nil
			case <-ctx.Done():
				return false, ctx.Err()
			}
		}
		p := s.docs[s.front]
		if p.batches == nil {
			s.front++
			continue
		}
		select {
		case b, ok := <-p.batches:
			if !ok {
				s.front++
				continue
			}
			if !s.done[s.front] {
				s.queued[s.front] = append(s.queued[s.front], b)
			}
			return true, nil
		case <-linger:
			return false, nil
		case <-ctx.Done():
			return false, ctx.Err()
		}
	}
	return false, nil
}

// next returns document i's next batch, embedded; false after its last.
func (s *batchSource) next(ctx context.Context, i int) (docBatch, bool, error) {
	for len(s.queued[i]) == 0 {
		if s.front > i {
			return docBatch{}, false, nil
		}
		if _, err := s.receive(ctx, nil); err != nil {
			return docBatch{}, false, err
		}
	}
	if unembedded(s.queued[i][0]) > 0 {
		if err := s.embed(ctx, i); err != nil {
			return docBatch{}, false, err
		}
	}
	b := s.queued[i][0]
	s.queued[i] = s.queued[i][1:]
	return b, true, nil
}

// finish drops what is left of document i: the batches after a failed one.
func (s *batchSource) finish(i int) {
	s.done[i] = true
	s.queued[i] = nil
}

// unembedded is the number of b's chunks still to embed: its new ones, which come first.
func unembedded(b docBatch) int {
	if b.err != nil || len(b.results) == 0 || b.chunks[0].Embedding != nil {
		return 0
	}
	return len(b.results)
}

// embed embeds the queued batches from document i's first on, receiving more until they hold
// a request's worth of texts or every batch is received. A failed request fails the documents
// of its batches, as a failed extraction does.
func (s *batchSource) embed(ctx context.Context, i int) error {
	limitTexts, limitTokens := s.in.Options.EmbedBatch, s.in.Options.EmbedTokens
	type ref struct{ doc, k int }
	var group []ref
	texts, tokens := 0, 0
	full := false
	// scan adds the queued batches not yet in the group while they fit.
	scanned := map[ref]bool{}
	scan := func() {
		for j := i; j < len(s.queued) && j <= s.front && !full; j++ {
			for k, b := range s.queued[j] {
				r := ref{j, k}
				n := unembedded(b)
				if scanned[r] || n == 0 {
					continue
				}
				scanned[r] = true
				t := 0
				for _, c := range b.chunks[:n] {
					t += c.Tokens
				}
				if len(group) > 0 && (texts+n > limitTexts || tokens+t > limitTokens) {
					full = true
					return
				}
				group = append(group, r)
				texts, tokens = texts+n, tokens+t
			}
		}
	}
	scan()
	for !full && texts < limitTexts && tokens < limitTokens {
		t := time.NewTimer(embedLinger)
		more, err := s.receive(ctx, t.C)
		t.Stop()
		if err != nil {
			return err
		}
		if !more {
			break
		}
		scan()
	}
	var in []string
	for _, r := range group {
		b := s.queued[r.doc][r.k]
		for _, c := range b.chunks[:len(b.results)] {
			in = append(in, c.Text)
		}
	}
	vecs, err := s.in.embed(ctx, in)
	if err != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	for _, r := range group {
		b := &s.queued[r.doc][r.k]
		if err != nil {
			b.err = fmt.Errorf("embed chunks of %s: %w", s.docs[r.doc].doc.ID, err)
			continue
		}
		for c := range b.results {
			b.chunks[c].Embedding, vecs = vecs[0], vecs[1:]
		}
	}
	return nil
}
