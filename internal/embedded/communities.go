package embedded

import (
	"context"
	"database/sql"
	"fmt"
	"slices"

	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/graphalgo"
)

// ComputeCommunities runs hierarchical Leiden over the entity graph and replaces every
// community, IN_COMMUNITY and CHILD_OF in one transaction. Reports written for the previous
// communities are dropped with them.
func (s *Store) ComputeCommunities(ctx context.Context, p graph.LeidenParams) ([]graph.Community, error) {
	var out []graph.Community
	err := s.write(ctx, "compute communities", func(tx *sql.Tx) error {
		eg, err := s.entityGraph(ctx, tx)
		if err != nil {
			return err
		}
		res := graphalgo.Leiden(eg.g, graphalgo.LeidenOptions{
			Gamma: p.Gamma, Theta: p.Theta, Tolerance: p.Tolerance, MaxLevels: p.MaxLevels, Seed: p.Seed,
		})
		if err := ctx.Err(); err != nil {
			return err
		}
		comms, members := hierarchy(res.Levels)
		if err := replaceCommunities(ctx, tx, eg.ids, comms, members); err != nil {
			return err
		}
		out = comms
		return bumpGeneration(ctx, tx, string(graph.CommunityEmbedding))
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// hierarchy turns Leiden's levels (finest first, nested) into communities ordered by level then
// community id, with level 0 the coarsest, and the member nodes of each. The parent of a
// community is the community one level coarser that holds its members; as the levels are nested
// any member will do, and the smallest is used.
func hierarchy(levels [][]int) ([]graph.Community, [][]int) {
	var comms []graph.Community
	var members [][]int
	for level := range levels {
		part := levels[len(levels)-1-level]
		byID := map[int][]int{}
		for node, c := range part {
			byID[c] = append(byID[c], node)
		}
		ids := make([]int, 0, len(byID))
		for c := range byID {
			ids = append(ids, c)
		}
		slices.Sort(ids)
		for _, c := range ids {
			nodes := byID[c]
			comm := graph.Community{
				ID:          graph.CommunityID(level, int64(c)),
				Level:       level,
				CommunityID: int64(c),
				Size:        len(nodes),
			}
			if level > 0 {
				coarser := levels[len(levels)-level]
				comm.ParentID = graph.CommunityID(level-1, int64(coarser[nodes[0]]))
			}
			comms = append(comms, comm)
			members = append(members, nodes)
		}
	}
	return comms, members
}

// replaceCommunities deletes every community and membership and writes comms, whose members are
// indexes into ids.
func replaceCommunities(ctx context.Context, tx *sql.Tx, ids []string, comms []graph.Community, members [][]int) error {
	for _, q := range []string{`DELETE FROM community_members`, `DELETE FROM communities`} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("delete previous communities: %w", err)
		}
	}
	insComm, err := tx.PrepareContext(ctx, `
		INSERT INTO communities (id, level, community_id, parent_id, size) VALUES (?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer insComm.Close()
	insMember, err := tx.PrepareContext(ctx, `INSERT INTO community_members (community_id, entity_id) VALUES (?, ?)`)
	if err != nil {
		return err
	}
	defer insMember.Close()
	for i, c := range comms {
		if _, err := insComm.ExecContext(ctx, c.ID, c.Level, c.CommunityID, c.ParentID, c.Size); err != nil {
			return fmt.Errorf("write community %s: %w", c.ID, err)
		}
		for _, node := range members[i] {
			if _, err := insMember.ExecContext(ctx, c.ID, ids[node]); err != nil {
				return fmt.Errorf("write member %s of community %s: %w", ids[node], c.ID, err)
			}
		}
	}
	return nil
}
