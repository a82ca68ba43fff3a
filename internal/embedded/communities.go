package embedded

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/graphalgo"
	"github.com/stratarag/strata/internal/idlist"
)

// ComputeCommunities runs hierarchical Leiden over the entity graph and replaces every
// community, IN_COMMUNITY and CHILD_OF in one transaction. Reports written for the previous
// communities are dropped with them. The modularity of each level is recorded
// (graph.CommunityModularityKey), the reference of UpdateCommunities' drift bound.
func (s *Store) ComputeCommunities(ctx context.Context, p graph.LeidenParams) ([]graph.Community, error) {
	opt, err := s.leidenOptions(p)
	if err != nil {
		return nil, fmt.Errorf("compute communities: %w", err)
	}
	var out []graph.Community
	err = s.write(ctx, "compute communities", func(tx *sql.Tx) error {
		eg, err := s.entityGraph(ctx, tx, false)
		if err != nil {
			return err
		}
		// Leiden needs the graph alone, and the writing below the ids alone: each is read
		// when needed and dead after its last use, so the two never add up (an uncached graph's
		// ids are let go here and read again).
		g, n := eg.g, eg.ids.Len()
		// Released at the two turns of the stage, where a graph of millions of entities leaves
		// hundreds of MB of garbage (the rows and ids read to build it; then the graph and
		// Leiden's arrays). Leiden itself allocates next to nothing once it has started.
		s.release()
		levels, q, err := graphalgo.LeidenLevels(ctx, g, opt)
		if err != nil {
			return err
		}
		s.release()
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
		if err := setMeta(ctx, tx, graph.CommunityModularityKey, graph.FormatModularity(coarsestFirst(q))); err != nil {
			return err
		}
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
// the string of the parent's ID, the slice allocated once at its size). Each level is let go
// (set to nil in levels) once the next finer one has its parents: 4 bytes a node and level.
func hierarchy(levels [][]int32, emit func(c graph.Community, members []int32) error) ([]graph.Community, error) {
	bound := 0 // communities of all levels, at most
	for _, part := range levels {
		if len(part) > 0 {
			bound += min(max(int(slices.Max(part))+1, 0), len(part))
		}
	}
	comms := slices.Grow([]graph.Community(nil), bound)
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
		var coarser []int32
		if level > 0 {
			coarser = levels[len(levels)-level]
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
			if coarser != nil {
				comm.ParentID = parentIDs[coarser[nodes[0]]]
			}
			if err := emit(comm, nodes); err != nil {
				return nil, err
			}
			comms = append(comms, comm)
		}
		if level > 0 {
			levels[len(levels)-level] = nil
		}
	}
	return comms, nil
}

// memberRows is how many IN_COMMUNITY rows one INSERT writes: a statement per row costs more in
// database/sql than in SQLite, and a graph of millions of entities has tens of millions of rows.
const memberRows = 256

// replaceCommunities deletes every community and membership and writes the hierarchy of levels
// (see hierarchy, which lets go of them), whose nodes are indexes into ids. It returns the
// communities written.
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
	insMembers, err := tx.PrepareContext(ctx, insertMembersSQL(memberRows))
	if err != nil {
		return nil, err
	}
	defer insMembers.Close()
	args := make([]any, 0, 2*memberRows) // pairs of community and entity id
	// flush writes the rows in args: a full batch by the prepared statement, the last few by
	// one of their own.
	flush := func() error {
		var err error
		switch len(args) {
		case 0:
			return nil
		case cap(args):
			_, err = insMembers.ExecContext(ctx, args...)
		default:
			_, err = tx.ExecContext(ctx, insertMembersSQL(len(args)/2), args...)
		}
		if err != nil {
			return fmt.Errorf("write members of communities from %s: %w", args[0], err)
		}
		args = args[:0]
		return nil
	}
	comms, err := hierarchy(levels, func(c graph.Community, members []int32) error {
		if _, err := insComm.ExecContext(ctx, c.ID, c.Level, c.CommunityID, c.ParentID, c.Size); err != nil {
			return fmt.Errorf("write community %s: %w", c.ID, err)
		}
		for _, node := range members {
			args = append(args, c.ID, ids.At(int(node)))
			if len(args) == cap(args) {
				if err := flush(); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return comms, flush()
}

// insertMembersSQL is the INSERT of rows IN_COMMUNITY rows, its parameters pairs of community and
// entity id.
func insertMembersSQL(rows int) string {
	var b strings.Builder
	b.WriteString(`INSERT INTO community_members (community_id, entity_id) VALUES (?, ?)`)
	for range rows - 1 {
		b.WriteString(`, (?, ?)`)
	}
	return b.String()
}
