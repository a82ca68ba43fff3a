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

// buildHierarchy turns Leiden's per-node levels into strata's communities.
//
// GDS lists intermediateCommunityIds finest first while strata's level 0 is the coarsest, so
// GDS level i of n becomes level n-1-i.
//
// Levels must nest (CHILD_OF names the one coarser community holding all of a community's
// members), but Leiden only nearly guarantees it: a later level's local moving may move a
// refined part of a community elsewhere. So a community of level l is the set of entities that
// share both their level l-1 community and their GDS community at level l; where GDS's levels
// nest, that is exactly GDS's partition.
//
// GDS community ids are arbitrary (they follow internal node ids), so each level is numbered
// 0..k-1 in the order of each community's smallest entity id, which gives the same ids for the
// same graph on every run and every server.
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

	type key struct {
		parent int64 // community id one level coarser; -1 at level 0
		gds    int64 // GDS community id at this level
	}
	var h hierarchy
	parentOf := make([]int64, len(sorted)) // entity index -> community id at the previous level
	for i := range parentOf {
		parentOf[i] = -1
	}
	for level := 0; level < n; level++ {
		gdsLevel := n - 1 - level
		ids := map[key]int64{}
		var sizes []int
		var parents []int64
		current := make([]int64, len(sorted))
		for i, r := range sorted { // ascending entity id: first seen = smallest member
			k := key{parent: parentOf[i], gds: r.levels[gdsLevel]}
			id, ok := ids[k]
			if !ok {
				id = int64(len(ids))
				ids[k] = id
				sizes = append(sizes, 0)
				parents = append(parents, k.parent)
			}
			sizes[id]++
			current[i] = id
			h.members = append(h.members, membership{entityID: r.entityID, communityID: graph.CommunityID(level, id)})
		}
		for id := range sizes {
			c := graph.Community{
				ID:          graph.CommunityID(level, int64(id)),
				Level:       level,
				CommunityID: int64(id),
				Size:        sizes[id],
			}
			if level > 0 {
				c.ParentID = graph.CommunityID(level-1, parents[id])
			}
			h.communities = append(h.communities, c)
		}
		parentOf = current
	}
	return h, nil
}
