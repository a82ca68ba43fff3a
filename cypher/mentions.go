package cypher

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/mentionindex"
)

// metaMentionGeneration is the StrataMeta key of the counter that Apply bumps whenever it
// changes HAS_ENTITY mentions, directly or by deleting chunks, documents or entities
// (generationsMoved).
const metaMentionGeneration = "mentions.generation"

// residentMentions is a resident store's in-memory copy of every mention, which answers
// DocumentLinks: hi mode makes two calls per query on its critical path, each a statement of
// tens of milliseconds on a corpus like mix where the copy takes microseconds
// (bench/README.md, neo4jquery). It belongs to one
// generation of metaMentionGeneration, which each call reads (once per read scope) to tell
// whether it is current.
type residentMentions struct {
	mu  sync.Mutex
	gen string
	ix  *mentionindex.Index // nil until loaded
}

// residentDocumentLinks answers DocumentLinks from the in-memory mentions, loading them first
// when their generation moved on.
func (s *Store) residentDocumentLinks(ctx context.Context, ids []string, maxDocuments int) ([]graph.DocumentLink, error) {
	var links []graph.DocumentLink
	err := s.withMentions(ctx, func(ix *mentionindex.Index) { links = ix.DocumentLinks(ids, maxDocuments) })
	return links, err
}

// withMentions calls f with the current copy of the mentions, loading it first when their
// generation moved on.
func (s *Store) withMentions(ctx context.Context, f func(*mentionindex.Index)) error {
	gen, err := s.generation(ctx, metaMentionGeneration)
	if err != nil {
		return err
	}
	m := &s.mentions
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.ix == nil || m.gen != gen {
		if err := s.loadMentions(ctx, m); err != nil {
			return err
		}
	}
	f(m.ix)
	return nil
}

// loadMentions replaces the copy m by the mentions read_mention_index reads, with their
// generation; the caller holds m.mu.
func (s *Store) loadMentions(ctx context.Context, m *residentMentions) error {
	start := time.Now()
	rows, err := s.readRows(ctx, qReadMentionIndex, map[string]any{"key": metaMentionGeneration})
	if err != nil {
		return fmt.Errorf("load the mentions: %w", err)
	}
	b := mentionindex.NewBuilder()
	gen := ""
	ids, entities := make([]string, len(rows)), make([][]string, len(rows))
	for i, row := range rows {
		f := fields{m: row}
		if i == 0 {
			gen = f.str("generation")
		}
		ids[i], entities[i] = f.str("id"), f.strs("entities")
		b.AddChunk(ids[i], f.str("documentId"), f.int("seq"))
		if f.err != nil {
			return fmt.Errorf("load the mentions: %w", f.err)
		}
	}
	// Every chunk first: a mention is kept only when its chunk is known.
	for i, id := range ids {
		for _, e := range entities[i] {
			b.AddMention(id, e)
		}
	}
	m.gen, m.ix = gen, b.Index()
	s.copyLoaded(qReadMentionIndex, len(rows), start)
	return nil
}
