package embedded

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"sync"

	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/graphalgo"
)

// pprGraph is the graph personalized PageRank walks (graph.ChunkRanker): every entity, then
// every chunk, each kind numbered in id order so that a node's number orders as its id does;
// RELATED and HAS_ENTITY are its undirected edges. It is kept apart from the entity graph,
// which holds SUMMARIZED_BY and no chunks.
type pprGraph struct {
	genGraph, genMentions int64 // generations it was read at
	entities, chunks      []string
	g                     *graphalgo.Graph
}

// pprCache keeps the PPR graph of a Resident store until a write changes entities, relations,
// chunks or mentions.
type pprCache struct {
	mu sync.Mutex
	pg *pprGraph
}

var _ graph.ChunkRanker = (*Store)(nil)

// PPRChunks implements graph.ChunkRanker in Go (graphalgo.PersonalizedPageRank). A Resident
// store keeps the graph per generation; a fresh process reads it for its one query (about what
// DocumentLinks' mention index costs to load).
func (s *Store) PPRChunks(ctx context.Context, seeds []graph.PPRSeed, opt graph.PPROptions, k int) ([]graph.Hit, error) {
	var hits []graph.Hit
	err := s.read(ctx, "ppr chunks", func(tx *sql.Tx) error {
		pg, err := s.pprGraph(ctx, tx)
		if err != nil {
			return err
		}
		var nodes []graphalgo.Seed
		for _, sd := range graph.NormalizePPRSeeds(seeds) {
			ids, base := pg.entities, 0
			if sd.Chunk {
				ids, base = pg.chunks, len(pg.entities)
			}
			if i, ok := slices.BinarySearch(ids, sd.ID); ok {
				nodes = append(nodes, graphalgo.Seed{Node: base + i, Weight: sd.Weight})
			}
		}
		if len(nodes) == 0 || k <= 0 {
			return nil
		}
		score, err := graphalgo.PersonalizedPageRank(pg.g, nodes, graphalgo.PPROptions(opt))
		if err != nil {
			return err
		}
		first := len(pg.entities)
		top := graphalgo.TopNodes(score, k, func(v int) bool { return v >= first }, cmp.Compare[int])
		hits = make([]graph.Hit, len(top))
		for i, v := range top {
			hits[i] = graph.Hit{ID: pg.chunks[v-first], Score: score[v]}
		}
		return nil
	})
	return hits, err
}

// pprGraph returns the PPR graph of tx's snapshot: the cached one when both of its generations
// are current, else one read now (and cached by a Resident store).
func (s *Store) pprGraph(ctx context.Context, tx *sql.Tx) (*pprGraph, error) {
	genG, err := generation(ctx, tx, genEntityGraph)
	if err != nil {
		return nil, err
	}
	var genM int64 = -1 // a store older than the mentions generation: never cached
	if s.version >= mentionsVersion {
		if genM, err = generation(ctx, tx, genMentions); err != nil {
			return nil, err
		}
	}
	s.ppr.mu.Lock()
	defer s.ppr.mu.Unlock()
	if pg := s.ppr.pg; pg != nil && pg.genGraph == genG && pg.genMentions == genM && genM >= 0 {
		return pg, nil
	}
	s.ppr.pg = nil // not held beside its successor
	pg, err := loadPPRGraph(ctx, tx)
	if err != nil {
		return nil, err
	}
	pg.genGraph, pg.genMentions = genG, genM
	if s.resident {
		s.ppr.pg = pg
	}
	return pg, nil
}

// loadPPRGraph reads the ids of entities and chunks, then RELATED (weights as edgeWeight makes
// them, as the entity graph does) and mentions (weight 1) as edges.
func loadPPRGraph(ctx context.Context, tx *sql.Tx) (*pprGraph, error) {
	entities, err := readIDs(ctx, tx, `SELECT id FROM entities ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("ppr graph entities: %w", err)
	}
	chunks, err := readIDs(ctx, tx, `SELECT id FROM chunks ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("ppr graph chunks: %w", err)
	}
	find := func(ids []string, id string, base int) (int32, bool) {
		i, ok := slices.BinarySearch(ids, id)
		return int32(base + i), ok
	}
	nE := len(entities)
	edges := func(yield func(u, v int32, w float64) error) error {
		for _, q := range []struct {
			sql     string
			chunkA  bool // the first column is a chunk id
			related bool
		}{
			{`SELECT source, target, weight FROM relations`, false, true},
			{`SELECT chunk_id, entity_id, 1.0 FROM mentions`, true, false},
		} {
			rows, err := tx.QueryContext(ctx, q.sql)
			if err != nil {
				return err
			}
			for rows.Next() {
				var a, b string
				var w float64
				if err := rows.Scan(&a, &b, &w); err != nil {
					rows.Close()
					return err
				}
				var u int32
				var okU bool
				if q.chunkA {
					u, okU = find(chunks, a, nE)
				} else {
					u, okU = find(entities, a, 0)
				}
				v, okV := find(entities, b, 0)
				if !okU || !okV || u == v {
					continue
				}
				if q.related {
					w = edgeWeight(w)
				}
				if err := yield(u, v, w); err != nil {
					rows.Close()
					return err
				}
			}
			err = rows.Err()
			rows.Close()
			if err != nil {
				return err
			}
		}
		return nil
	}
	g, err := graphalgo.NewGraphFromSource(nE+len(chunks), edges)
	if err != nil {
		return nil, fmt.Errorf("ppr graph: %w", err)
	}
	return &pprGraph{entities: entities, chunks: chunks, g: g}, nil
}

// readIDs reads the one text column of query's rows.
func readIDs(ctx context.Context, tx *sql.Tx, query string) ([]string, error) {
	rows, err := tx.QueryContext(ctx, query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}
