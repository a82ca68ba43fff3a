package cypher

import (
	"context"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/stratarag/strata/internal/graph"
)

// warmPoll is how often a warming store reads the generations to see whether a write moved its
// copies on.
const warmPoll = 2 * time.Second

// warmer keeps a resident store's copies loaded in the background (StartWarming), so that no
// request waits for one: loading them costs seconds on a corpus of 20 k entities, and the Neo4j
// server plans each statement the first time it sees it.
type warmer struct {
	start  sync.Once
	ready  atomic.Bool
	cancel context.CancelFunc
	done   chan struct{}
}

// warmStatements are the statements of the served query paths that StartWarming sends once each,
// with parameters that match nothing, so that the server has planned them before the first
// request: planning one of them for the first time costs up to hundreds of milliseconds.
var warmStatements = []struct {
	name   string
	params map[string]any
}{
	{qSearchText, map[string]any{"index": string(graph.EntityText), "query": "strata", "k": int64(1)}},
	{qSearchText, map[string]any{"index": string(graph.ChunkText), "query": "strata", "k": int64(1)}},
	{qReadChunks, map[string]any{"ids": []string{""}}},
	{qReadDocuments, map[string]any{"ids": []string{""}}},
	{qReadEntities, map[string]any{"ids": []string{""}}},
	{qReadEntitiesTexts, map[string]any{"ids": []string{""}}},
	{qReadMetaKeys, map[string]any{"keys": []string{""}}},
}

// StartWarming makes a resident store (Config.Resident) load its in-memory copies and have its
// query statements planned in the background, now and again whenever a write moves the
// generations they belong to (read every warmPoll), until Close. Warm tells when it is done.
// Queries stay correct meanwhile: one that finds a copy missing or stale loads it itself.
// Calling it again, or on a store that keeps no copies, does nothing.
func (s *Store) StartWarming() {
	if !s.resident {
		return
	}
	s.warm.start.Do(func() {
		ctx, cancel := context.WithCancel(context.Background())
		s.warm.cancel, s.warm.done = cancel, make(chan struct{})
		go s.keepWarm(ctx)
	})
}

// Warm reports whether the copies are loaded for the generations last read and the statements
// planned; always true for a store that keeps no copies, false for a resident one that was not
// asked to StartWarming.
func (s *Store) Warm() bool { return !s.resident || s.warm.ready.Load() }

// stopWarming ends the background loading, if any, and waits for it.
func (s *Store) stopWarming() {
	if s.warm.cancel != nil {
		s.warm.cancel()
		<-s.warm.done
	}
}

// warmState is what warming has done so far.
type warmState struct {
	planned, exercised bool
	// unprojected is the entity graph generation warming last failed to project: it does not
	// try again until the generation moves.
	unprojected string
}

func (s *Store) keepWarm(ctx context.Context) {
	defer close(s.warm.done)
	var warmed map[string]string // the generations the copies were last loaded for
	var st warmState
	for {
		gens, err := s.warmUp(ctx, warmed, &st)
		switch {
		case err == nil:
			warmed = gens
		case ctx.Err() == nil:
			s.log.Warn().Err(err).Msg("neo4j: loading the in-memory copies failed; queries load them")
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(warmPoll):
		}
	}
}

// warmUp loads every copy whose generation moved since warmed, and the first time plans the
// statements first (every query needs them, and they take a fraction of a second); it returns
// the generations it loaded for. A projection of the entity graph lost with the server's GDS
// catalog (a restart since the last ingest) is made again first.
func (s *Store) warmUp(base context.Context, warmed map[string]string, st *warmState) (map[string]string, error) {
	ctx := graph.WithReadScope(base)
	gens, err := s.generations(ctx)
	if err != nil {
		return nil, err
	}
	if s.projectionLost(gens, st) {
		if _, _, _, err := s.projection(base); err != nil {
			if base.Err() != nil {
				return nil, err
			}
			st.unprojected = gens[metaEntityGraphGeneration]
			s.log.Warn().Err(err).Msg("neo4j: projecting the entity graph again failed; paths come from the Cypher statements")
		} else {
			ctx = graph.WithReadScope(base)
			if gens, err = s.generations(ctx); err != nil {
				return nil, err
			}
		}
	}
	if st.planned && maps.Equal(gens, warmed) {
		return gens, nil
	}
	s.warm.ready.Store(false)
	start := time.Now()
	if !st.planned {
		for _, w := range warmStatements {
			if _, err := s.readRows(ctx, w.name, w.params); err != nil {
				if ctx.Err() != nil {
					return nil, err
				}
				s.log.Debug().Err(err).Str("statement", w.name).Msg("neo4j: planning a statement ahead failed")
			}
		}
		st.planned = true
	}
	if err := s.loadCopies(ctx); err != nil {
		return nil, err
	}
	if !st.exercised {
		if err := s.exercise(ctx); err != nil {
			return nil, err
		}
		st.exercised = true
	}
	s.warm.ready.Store(true)
	s.log.Info().Dur("took", time.Since(start)).Msg("neo4j: in-memory copies loaded")
	return gens, nil
}

// projectionLost reports whether the entity graph of gens has no projection on a server with
// GDS, and warming has not failed to make it for that generation. Not while an ingest runs:
// each of its batches moves the generation, and it projects the graph it ends with itself.
func (s *Store) projectionLost(gens map[string]string, st *warmState) bool {
	gen := gens[metaEntityGraphGeneration]
	return s.gds != "" && gens[projectionKey] != "true" && gen != "" && gen != st.unprojected &&
		gens[graph.MetaIngestState] != graph.IngestStarted
}

// loadCopies brings every copy a resident store keeps up to the generations ctx's read scope
// holds, each as the first query needing it would, the independent ones at once (the server
// reads one while this process builds another): the vectors (when both indexes exist), then
// the records of every entity, chunk and document within the copies' bounds; the mentions; the
// community memberships and records; the relations; the copy of the entity projection (when it
// exists); the summary links.
func (s *Store) loadCopies(ctx context.Context) error {
	entityDim, chunkDim, ok, err := s.residentDims(ctx)
	if err != nil {
		return err
	}
	g, ctx := errgroup.WithContext(ctx)
	if ok {
		g.Go(func() error {
			ids, err := s.residentIDs(ctx, graph.EntityEmbedding, entityDim)
			if err != nil || len(ids) > residentEntities {
				return err
			}
			_, err = s.cachedEntityTexts(ctx, ids)
			return err
		})
		g.Go(func() error {
			ids, err := s.residentIDs(ctx, graph.ChunkEmbedding, chunkDim)
			if err != nil || len(ids) > residentChunks {
				return err
			}
			chunks, err := s.Chunks(ctx, ids)
			if err != nil {
				return err
			}
			docs := make([]string, 0, len(chunks))
			for _, c := range chunks {
				docs = append(docs, c.DocumentID)
			}
			if docs = graph.UniqueIDs(docs); len(docs) > residentDocuments {
				return nil
			}
			_, err = s.Documents(ctx, docs)
			return err
		})
	}
	g.Go(func() error {
		_, err := s.residentDocumentLinks(ctx, nil, 1)
		return err
	})
	g.Go(func() error {
		_, err := s.residentCommunityEntities(ctx, nil)
		return err
	})
	g.Go(func() error {
		_, err := s.residentCommunityRecords(ctx)
		return err
	})
	g.Go(func() error {
		_, err := s.residentRelationsByKey(ctx, nil)
		return err
	})
	g.Go(func() error {
		_, _, err := s.residentGDSPaths(ctx, nil, 0)
		return err
	})
	g.Go(func() error {
		_, err := s.residentAncestorLinks(ctx, nil)
		return err
	})
	return g.Wait()
}

// exerciseRounds is how many times exercise sends each statement of the query paths that does
// real work on the server.
const exerciseRounds = 40

// exercise sends the full-text searches of the query paths exerciseRounds times each, as
// queries would, with words of the store: a server just started runs them at half speed until
// its JIT compiler has seen them, which a first client would otherwise pay for. Which entities'
// names it takes does not matter; the ones of the copy, in id order, make it repeatable.
func (s *Store) exercise(ctx context.Context) error {
	s.entityCache.mu.Lock()
	entities := make([]graph.Entity, 0, len(s.entityCache.byID))
	for _, e := range s.entityCache.byID {
		entities = append(entities, e)
	}
	s.entityCache.mu.Unlock()
	if len(entities) == 0 {
		return nil
	}
	slices.SortFunc(entities, func(a, b graph.Entity) int { return strings.Compare(a.ID, b.ID) })
	step := max(1, len(entities)/(exerciseRounds*20))
	for round := range exerciseRounds {
		var words []string
		for i := round; i < len(entities) && len(words) < 3; i += step * exerciseRounds {
			words = append(words, entities[i].Name)
		}
		q := luceneQuery("who what is the of and in " + strings.Join(words, " "))
		for _, p := range []map[string]any{
			{"index": string(graph.EntityText), "query": q, "k": int64(200)},
			{"index": string(graph.ChunkText), "query": q, "k": int64(40)},
		} {
			if _, err := s.readRows(ctx, qSearchText, p); err != nil {
				return err
			}
		}
	}
	return nil
}

// residentIDs returns the ids of the copy of a vector index of dimension dim, loading it when
// its generation moved on: every record with a stored embedding.
func (s *Store) residentIDs(ctx context.Context, index graph.VectorIndex, dim int) ([]string, error) {
	var ids []string
	err := s.withResidentVectors(ctx, index, dim, func(v *residentVectors) {
		ids = make([]string, 0, len(v.ids)+len(v.unindexed))
		ids = append(ids, v.ids...)
		for id := range v.unindexed {
			ids = append(ids, id)
		}
	})
	slices.Sort(ids)
	return ids, err
}

// copyLoaded logs at debug level that an in-memory copy was (re)loaded from statement: rows read
// and the time from sending the statement to the copy being built, so that a slow first query
// shows which copies it waited for.
func (s *Store) copyLoaded(statement string, rows int, start time.Time) {
	s.log.Debug().Str("copy", statement).Int("rows", rows).Dur("took", time.Since(start)).Msg("copy loaded")
}
