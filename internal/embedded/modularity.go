package embedded

import (
	"context"
	"database/sql"
	"strings"

	"github.com/stratarag/strata/internal/graphalgo"
	"github.com/stratarag/strata/internal/idlist"
)

// CommunityModularity returns the modularity (resolution gamma) of each level of the stored
// communities, coarsest level (0) first, on the graph the communities stage partitions: every
// entity of every layer a node, RELATED and SUMMARIZED_BY undirected edges with their weights
// (entityGraph). An entity in no community of a level counts as a community of its own there.
// Right after ComputeCommunities it gives the modularity the stage recorded
// (graph.CommunityModularityKey); after updates it measures how far they drifted, so that tests
// and benchmarks can compare an updated store with a fresh one.
//
// With extracted true the graph is that of the extracted (layer-0) entities alone, with the
// relations among them, and each level the communities' layer-0 members: the part of the graph
// that a store updated change by change and a fresh ingest of the same documents share (their
// summaries differ), on which their communities can be compared.
func (s *Store) CommunityModularity(ctx context.Context, gamma float64, extracted bool) ([]float64, error) {
	var out []float64
	err := s.read(ctx, "community modularity", func(tx *sql.Tx) error {
		eg, err := s.entityGraph(ctx, tx, false)
		if err != nil {
			return err
		}
		g := eg.g
		keep := func(int) bool { return true }
		if extracted {
			g, keep = extractedSubgraph(eg)
		}
		n := eg.ids.Len()
		stored, err := readStoredCommunities(ctx, tx, idlist.NewIndex(eg.ids))
		if err != nil {
			return err
		}
		levels := initialLevels(stored, n) // finest first, -1 for a node in no community
		membership := make([]int, 0, n)
		for k := len(levels) - 1; k >= 0; k-- {
			membership = membership[:0]
			for u, c := range levels[k] {
				switch {
				case !keep(u):
				case c < 0:
					membership = append(membership, n+u) // a community of its own, apart from every numbered one
				default:
					membership = append(membership, int(c))
				}
			}
			out = append(out, graphalgo.Modularity(g, membership, gamma))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// extractedSubgraph returns the graph of eg's extracted entities (ids without a summary's " @L"
// layer suffix), numbered in eg's order without the others, and which nodes of eg it keeps.
func extractedSubgraph(eg *entityGraph) (*graphalgo.Graph, func(int) bool) {
	n := eg.ids.Len()
	index := make([]int32, n)
	k := int32(0)
	for u := range n {
		if strings.Contains(eg.ids.At(u), " @L") {
			index[u] = -1
			continue
		}
		index[u] = k
		k++
	}
	var edges []graphalgo.Edge
	for _, e := range eg.g.Edges() {
		if index[e.U] >= 0 && index[e.V] >= 0 {
			edges = append(edges, graphalgo.Edge{U: int(index[e.U]), V: int(index[e.V]), W: e.W})
		}
	}
	return graphalgo.NewGraph(int(k), edges), func(u int) bool { return index[u] >= 0 }
}
