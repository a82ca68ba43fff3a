package cypher

import (
	"fmt"
	"sort"

	"github.com/stratarag/strata/internal/graph"
)

// leidenRow is one node of gds.leiden.stream: the entity and its community per level as GDS
// lists them, finest first.
type leidenRow struct {
	entityID string
	levels   []int64
}

// hierarchy is what ComputeCommunities writes.
type hierarchy struct {
	communities []graph.Community // ordered by level, then community id
	members     []membership      // IN_COMMUNITY, every entity at every level
}

type membership struct{ entityID, communityID string }

// buildHierarchy turns Leiden's per-node levels into strata's communities. GDS lists
// intermediateCommunityIds finest first while strata's level 0 is the coarsest, so GDS level i
// of n becomes level n-1-i. GDS community ids are arbitrary (they depend on internal node ids),
// so each level is renumbered 0..k-1 in the order of each community's smallest entity id, which
// makes ids stable for the same graph. A community's parent is the community one level coarser
// that holds most of its members (ties: the smaller id); Leiden's levels nest, so that is
// normally all of them.
func buildHierarchy(rows []leidenRow) (hierarchy, error) {
	if len(rows) == 0 {
		return hierarchy{}, nil
	}
	n := len(rows[0].levels)
	for _, r := range rows {
		if len(r.levels) != n || n == 0 {
			return hierarchy{}, fmt.Errorf("gds.leiden.stream gave entity %q %d levels and entity %q %d; want the same non-zero number",
				r.entityID, len(r.levels), rows[0].entityID, n)
		}
	}
	sorted := append([]leidenRow(nil), rows...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].entityID < sorted[j].entityID })

	// assign[level][entity index] = renumbered community id at that level.
	assign := make([][]int64, n)
	var h hierarchy
	for level := 0; level < n; level++ {
		gdsLevel := n - 1 - level
		renumber := map[int64]int64{}
		sizes := map[int64]int{}
		assign[level] = make([]int64, len(sorted))
		for i, r := range sorted { // ascending entity id: first seen = smallest member
			gid := r.levels[gdsLevel]
			id, ok := renumber[gid]
			if !ok {
				id = int64(len(renumber))
				renumber[gid] = id
			}
			assign[level][i] = id
			sizes[id]++
		}
		parents := map[int64]string{}
		if level > 0 {
			parents = majorityParents(assign[level], assign[level-1], level-1)
		}
		for id := int64(0); id < int64(len(renumber)); id++ {
			h.communities = append(h.communities, graph.Community{
				ID:          graph.CommunityID(level, id),
				Level:       level,
				CommunityID: id,
				ParentID:    parents[id],
				Size:        sizes[id],
			})
		}
		for i, r := range sorted {
			h.members = append(h.members, membership{entityID: r.entityID, communityID: graph.CommunityID(level, assign[level][i])})
		}
	}
	return h, nil
}

// majorityParents maps each community of a level to the id of the coarser-level community that
// holds most of its members.
func majorityParents(fine, coarse []int64, coarseLevel int) map[int64]string {
	counts := map[int64]map[int64]int{}
	for i, c := range fine {
		if counts[c] == nil {
			counts[c] = map[int64]int{}
		}
		counts[c][coarse[i]]++
	}
	parents := make(map[int64]string, len(counts))
	for c, byParent := range counts {
		best, bestN := int64(-1), -1
		for p, k := range byParent {
			if k > bestN || k == bestN && p < best {
				best, bestN = p, k
			}
		}
		parents[c] = graph.CommunityID(coarseLevel, best)
	}
	return parents
}
