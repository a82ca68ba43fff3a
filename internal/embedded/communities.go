package embedded

import (
	"context"
	"database/sql"
	"fmt"
	"runtime/debug"
	"slices"

	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/graphalgo"
	"github.com/stratarag/strata/internal/idlist"
)

// ComputeCommunities runs hierarchical Leiden over the entity graph and replaces every
// community, IN_COMMUNITY and CHILD_OF in one transaction. Reports written for the previous
// communities are dropped with them.
func (s *Store) ComputeCommunities(ctx context.Context, p graph.LeidenParams) ([]graph.Community, error) {
	var out []graph.Community
	err := s.write(ctx, "compute communities", func(tx *sql.Tx) error {
		eg, err := s.entityGraph(ctx, tx, false)
		if err != nil {
			return err
		}
		// Leiden needs the graph alone, and the writing below the ids alone: each is read
		// when needed and dead after its last use, so the two never add up (an uncached graph's
		// ids are let go here and read again).
		g, n := eg.g, eg.ids.Len()
		// Collections at the two turns of the stage, where a graph of millions of entities
		// leaves hundreds of MB of garbage (the rows and ids read to build it; then the graph
		// and Leiden's arrays), its pages handed back: the collector would otherwise let the
		// next step's allocations pile on it, up to half again what was live at its last look.
		// Leiden itself allocates next to nothing once it has started.
		debug.FreeOSMemory()
		levels, _, err := graphalgo.LeidenLevels(ctx, g, graphalgo.LeidenOptions{
			Gamma: p.Gamma, Theta: p.Theta, Tolerance: p.Tolerance, MaxLevels: p.MaxLevels, Seed: p.Seed,
		})
		if err != nil {
			return err
		}
		debug.FreeOSMemory()
		ids, err := readEntityIDs(ctx, tx)
		if err != nil {
			return err
		}
		if ids.Len() != n {
			return fmt.Errorf("entity graph: %d nodes, but %d entities read again", n, ids.Len())
		}
		comms, err := replaceCommunities(ctx, tx, ids, levels)
		if err != nil {
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
// community id, with level 0 the coarsest, and hands each with its member nodes (ascending) to
// emit, which must not keep members. The parent of a community is the community one level
// coarser that holds its members; as the levels are nested any member will do, and the smallest
// is used. A level is grouped by a counting sort into arrays reused from level to level, and the
// communities are handed on as they are made, so that the hierarchy of millions of entities
// never holds more than one level's grouping and the communities themselves (ParentID sharing
// the string of the parent's ID).
func hierarchy(levels [][]int32, emit func(c graph.Community, members []int32) error) ([]graph.Community, error) {
	var comms []graph.Community
	var start, order []int32
	var ids, parentIDs []string // ID of each community id of this level, and of the one coarser
	for level := range levels {
		part := levels[len(levels)-1-level]
		k := 0
		for node, c := range part {
			if c < 0 || int(c) >= len(part) {
				return nil, fmt.Errorf("level %d: node %d in community %d, outside [0, %d)", level, node, c, len(part))
			}
			k = max(k, int(c)+1)
		}
		start = slices.Grow(start[:0], k+1)[:k+1]
		clear(start)
		for _, c := range part {
			start[c+1]++
		}
		for c := range k {
			start[c+1] += start[c]
		}
		order = slices.Grow(order[:0], len(part))[:len(part)]
		next := slices.Clone(start[:k])
		for node, c := range part {
			order[next[c]] = int32(node)
			next[c]++
		}
		parentIDs, ids = ids, make([]string, k)
		for c := range k {
			nodes := order[start[c]:start[c+1]]
			if len(nodes) == 0 {
				continue
			}
			comm := graph.Community{
				ID:          graph.CommunityID(level, int64(c)),
				Level:       level,
				CommunityID: int64(c),
				Size:        len(nodes),
			}
			ids[c] = comm.ID
			if level > 0 {
				coarser := levels[len(levels)-level]
				comm.ParentID = parentIDs[coarser[nodes[0]]]
			}
			if err := emit(comm, nodes); err != nil {
				return nil, err
			}
			comms = append(comms, comm)
		}
	}
	return comms, nil
}

// replaceCommunities deletes every community and membership and writes the hierarchy of levels
// (see hierarchy), whose nodes are indexes into ids. It returns the communities written.
func replaceCommunities(ctx context.Context, tx *sql.Tx, ids idlist.List, levels [][]int32) ([]graph.Community, error) {
	for _, q := range []string{`DELETE FROM community_members`, `DELETE FROM communities`} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return nil, fmt.Errorf("delete previous communities: %w", err)
		}
	}
	insComm, err := tx.PrepareContext(ctx, `
		INSERT INTO communities (id, level, community_id, parent_id, size) VALUES (?, ?, ?, ?, ?)`)
	if err != nil {
		return nil, err
	}
	defer insComm.Close()
	insMember, err := tx.PrepareContext(ctx, `INSERT INTO community_members (community_id, entity_id) VALUES (?, ?)`)
	if err != nil {
		return nil, err
	}
	defer insMember.Close()
	return hierarchy(levels, func(c graph.Community, members []int32) error {
		if _, err := insComm.ExecContext(ctx, c.ID, c.Level, c.CommunityID, c.ParentID, c.Size); err != nil {
			return fmt.Errorf("write community %s: %w", c.ID, err)
		}
		for _, node := range members {
			if _, err := insMember.ExecContext(ctx, c.ID, ids.At(int(node))); err != nil {
				return fmt.Errorf("write member %s of community %s: %w", ids.At(int(node)), c.ID, err)
			}
		}
		return nil
	})
}
