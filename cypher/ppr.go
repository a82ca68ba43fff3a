package cypher

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/graphalgo"
)

// The statements of graph.ChunkRanker (kept here rather than in querynames.go, which lists the
// others, so that this file holds the whole read).
const (
	qPPRProject = "ppr_project"
	qPPRStream  = "ppr_stream"
)

var _ graph.ChunkRanker = (*Store)(nil)

// pprPrefix starts the names of this database's PPR projections, apart from the entity
// projections' (projectionPrefix), whose clean-up must not drop them.
func (s *Store) pprPrefix() string {
	return "strata-ppr:" + strings.TrimPrefix(s.projectionPrefix, "strata-entities:")
}

// pprGenerations are the StrataMeta counters the PPR projection depends on: entities and
// RELATED, HAS_ENTITY, and chunks (a chunk naming nothing is a node of its own).
var pprGenerations = []string{metaEntityGraphGeneration, metaMentionGeneration, metaChunkGeneration}

// PPRChunks implements graph.ChunkRanker with GDS (ppr_stream.cypher): gds.pageRank.stream with
// sourceNodes on a projection of entities and chunks made once per generation of what it holds
// (ppr_project.cypher), one run per bit of the seeds' shares (pprGroups), as GDS 2.13 takes
// sources without weights. The projection stays in the catalog, as the entity projection does, for every later
// query of the same generation; older ones are dropped when a new one is made.
func (s *Store) PPRChunks(ctx context.Context, seeds []graph.PPRSeed, opt graph.PPROptions, k int) ([]graph.Hit, error) {
	if s.gds == "" {
		return nil, errors.New("ppr needs the GDS plugin on the Neo4j server (gds.pageRank)")
	}
	shares, total := graph.PPRShares(seeds)
	if len(shares) == 0 || k <= 0 {
		return nil, ctx.Err()
	}
	name, err := s.pprProjection(ctx)
	if err != nil {
		return nil, fmt.Errorf("ppr chunks: %w", err)
	}
	rows, err := s.run.one(ctx, true, s.q.get(qPPRStream), map[string]any{
		"graphName":  name,
		"groups":     pprGroups(shares, total),
		"damping":    opt.Damping,
		"iterations": int64(opt.MaxIterations),
		"tolerance":  opt.Tolerance,
		"k":          int64(k),
	})
	if err != nil {
		return nil, fmt.Errorf("ppr chunks: %w", err)
	}
	hits := make([]graph.Hit, 0, len(rows))
	for _, row := range rows {
		f := fields{m: row}
		hits = append(hits, graph.Hit{ID: f.str("id"), Score: f.float("score")})
		if f.err != nil {
			return nil, fmt.Errorf("%s: %w", qPPRStream, f.err)
		}
	}
	// The statement orders so already; ordering again here makes the tie rule Go's own
	// (graphalgo.RoundPPR, then id) whatever Cypher's rounding and string order do.
	slices.SortStableFunc(hits, func(a, b graph.Hit) int {
		return cmp.Or(cmp.Compare(graphalgo.RoundPPR(b.Score), graphalgo.RoundPPR(a.Score)), cmp.Compare(a.ID, b.ID))
	})
	return hits, nil
}

// pprGroups turns seeds' shares (graph.PPRShares) into the statement's groups, one per bit of
// the shares, highest first: the seeds whose share has bit b, weighing 2^b / total. The walk
// being linear in its start, the groups' runs summed with these weights are the walk from the
// weighted seeds, in at most graph.PPRShareBits+1 runs however many distinct weights there are.
func pprGroups(shares []graph.PPRSeed, total int) []map[string]any {
	out := []map[string]any{}
	for b := graph.PPRShareBits; b >= 0; b-- {
		var entities, chunks []any
		for _, sd := range shares {
			if int(sd.Weight)>>b&1 == 0 {
				continue
			}
			if sd.Chunk {
				chunks = append(chunks, sd.ID)
			} else {
				entities = append(entities, sd.ID)
			}
		}
		if entities != nil || chunks != nil {
			out = append(out, map[string]any{"weight": float64(int(1)<<b) / float64(total), "entities": nonNil(entities), "chunks": nonNil(chunks)})
		}
	}
	return out
}

func nonNil(ids []any) []any {
	if ids == nil {
		return []any{}
	}
	return ids
}

// pprProjection returns the name of the PPR projection of the current generations, projecting
// it when no process has yet, and drops this database's older PPR projections.
func (s *Store) pprProjection(ctx context.Context) (string, error) {
	gens, err := s.MetaValues(ctx, pprGenerations)
	if err != nil {
		return "", err
	}
	parts := make([]string, len(pprGenerations))
	for i, k := range pprGenerations {
		parts[i] = cmp.Or(gens[k], "0")
	}
	name := s.pprPrefix() + strings.Join(parts, ".")
	var existing []string
	err = s.run.write(ctx, func(t tx) error {
		existing = existing[:0]
		rows, err := t.run(ctx, s.q.get(qGDSList), map[string]any{"prefix": s.pprPrefix()})
		if err != nil {
			return err
		}
		found := false
		for _, row := range rows {
			f := fields{m: row}
			n := f.str("graphName")
			if f.err != nil {
				return f.err
			}
			existing = append(existing, n)
			found = found || n == name
		}
		if found {
			return nil
		}
		_, err = t.run(ctx, s.q.get(qPPRProject), map[string]any{"graphName": name})
		return err
	})
	if err != nil {
		// Another process may have projected the same generations first.
		if !strings.Contains(err.Error(), "already exists") {
			return "", fmt.Errorf("project %s: %w", name, err)
		}
	}
	for _, n := range existing {
		if n != name {
			s.drop(ctx, n)
		}
	}
	return name, nil
}
