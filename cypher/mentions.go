package cypher

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
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
		if err := s.loadMentionCopy(ctx, m, gen); err != nil {
			return err
		}
	}
	f(m.ix)
	return nil
}

// loadMentions replaces the copy m by the mentions read_mention_index reads, with their
// generation; the caller holds m.mu.
func (s *Store) loadMentions(ctx context.Context, m *residentMentions) ([]chunkMentions, error) {
	start := time.Now()
	rows, err := s.readRows(ctx, qReadMentionIndex, map[string]any{"key": metaMentionGeneration})
	if err != nil {
		return nil, fmt.Errorf("load the mentions: %w", err)
	}
	gen := ""
	out := make([]chunkMentions, len(rows))
	for i, row := range rows {
		f := fields{m: row}
		if i == 0 {
			gen = f.str("generation")
		}
		out[i] = chunkMentions{id: f.str("id"), doc: f.str("documentId"), seq: f.int("seq"), entities: f.strs("entities")}
		if f.err != nil {
			return nil, fmt.Errorf("load the mentions: %w", f.err)
		}
	}
	m.gen, m.ix = gen, mentionIndex(out)
	s.copyLoaded(qReadMentionIndex, len(rows), start)
	return out, nil
}

// loadMentionCopy loads the mention copy m for generation gen: from the snapshot in
// Config.SnapshotDir when it is of that generation, else from Neo4j, and then writes the
// snapshot (a failure to write it is logged, never fatal).
func (s *Store) loadMentionCopy(ctx context.Context, m *residentMentions, gen string) error {
	if s.snapshotDir == "" {
		_, err := s.loadMentions(ctx, m)
		return err
	}
	path := mentionSnapshotPath(s.snapshotDir)
	start := time.Now()
	rows, err := readMentionSnapshot(path, gen)
	if err == nil {
		m.gen, m.ix = gen, mentionIndex(rows)
		s.log.Debug().Str("snapshot", path).Int("chunks", len(rows)).Dur("took", time.Since(start)).Msg("copy read")
		return nil
	}
	if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, errSnapshotStale) {
		s.log.Warn().Err(err).Msg("mention snapshot refused; loading from Neo4j")
	}
	if err := s.snapshotWritable(); err != nil {
		return err
	}
	if rows, err = s.loadMentions(ctx, m); err != nil {
		return err
	}
	if err := writeMentionSnapshot(path, m.gen, rows); err != nil {
		s.log.Warn().Err(err).Str("snapshot", path).Msg("write mention snapshot: the next process loads the mentions from Neo4j again (--data-dir names a writable directory for them)")
	}
	return nil
}
