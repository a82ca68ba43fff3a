package embedded

import (
	"context"
	"database/sql"
	"fmt"
	"slices"

	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/graphalgo"
	"github.com/stratarag/strata/internal/idlist"
)

// UpdateCommunities recomputes the communities from the stored ones and stores the result over
// them in one transaction (see graph.Analyzer.UpdateCommunities): Leiden seeded with the stored
// hierarchy, level by level; a fresh Leiden instead when the seeded result drifts past the
// bound (graph.Drifted) of the recorded modularity; ids and reports kept by
// graph.MatchCommunities. The community generation is bumped only when a community is written.
func (s *Store) UpdateCommunities(ctx context.Context, p graph.LeidenParams, changed []string) (graph.CommunityUpdate, error) {
	opt, err := s.leidenOptions(p)
	if err != nil {
		return graph.CommunityUpdate{}, fmt.Errorf("update communities: %w", err)
	}
	var out graph.CommunityUpdate
	err = s.write(ctx, "update communities", func(tx *sql.Tx) error {
		eg, err := s.entityGraph(ctx, tx, false)
		if err != nil {
			return err
		}
		g, ids := eg.g, eg.ids
		index := idlist.NewIndex(ids)
		stored, err := readStoredCommunities(ctx, tx, index)
		if err != nil {
			return err
		}
		var changedNodes []int32
		for _, id := range changed {
			if u, ok := index.Find([]byte(id)); ok {
				changedNodes = append(changedNodes, u)
			}
		}
		fresh := func() ([][]int32, []float64, error) { return graphalgo.LeidenLevels(ctx, g, opt) }
		var levels [][]int32
		var q []float64
		if len(stored) == 0 {
			out.Fresh = true
			levels, q, err = fresh()
		} else {
			seeded := opt
			seeded.Initial = initialLevels(stored, ids.Len())
			seeded.Frontier, seeded.Affected = true, changedNodes
			levels, q, err = graphalgo.LeidenLevels(ctx, g, seeded)
			if err != nil {
				return err
			}
			var reference []float64
			if v, ok, err := metaValue(ctx, tx, graph.CommunityModularityKey); err != nil {
				return err
			} else if ok {
				reference = graph.ParseModularity(v)
			}
			var freshLevels [][]int32
			var freshQ []float64
			if reference == nil {
				// No record (a store computed before records were kept): the fresh result is
				// the reference, and is kept when the seeded one falls short of it.
				if freshLevels, freshQ, err = fresh(); err != nil {
					return err
				}
				reference = coarsestFirst(freshQ)
			}
			if graph.Drifted(coarsestFirst(q), reference) {
				out.Fresh = true
				if freshLevels == nil {
					freshLevels, freshQ, err = fresh()
				}
				levels, q = freshLevels, freshQ
			}
		}
		if err != nil {
			return err
		}
		out.Modularity = coarsestFirst(q)
		proposed, err := proposedCommunities(levels)
		if err != nil {
			return err
		}
		m := graph.MatchCommunities(stored, proposed, changedNodes)
		out.Total, out.Kept, out.Removed = len(m.Communities), m.Kept(), len(m.Removed)
		for _, i := range m.Report {
			out.Report = append(out.Report, m.Communities[i])
		}
		if out.Fresh {
			if err := setMeta(ctx, tx, graph.CommunityModularityKey, graph.FormatModularity(out.Modularity)); err != nil {
				return err
			}
		}
		if m.Unchanged() {
			return nil
		}
		if err := storeMatch(ctx, tx, ids, proposed, m); err != nil {
			return err
		}
		return bumpGeneration(ctx, tx, string(graph.CommunityEmbedding))
	})
	if err != nil {
		return graph.CommunityUpdate{}, err
	}
	return out, nil
}

// coarsestFirst returns Leiden's per-level values (finest first) with level 0, the coarsest,
// first, as communities number their levels.
func coarsestFirst(q []float64) []float64 {
	out := slices.Clone(q)
	slices.Reverse(out)
	return out
}

// readStoredCommunities reads every community (without its report) with the members
// IN_COMMUNITY lists, as positions in the index, ordered by level then community id.
// storedCommunitiesSQL reads every community's place in the hierarchy, from the covering index
// communities_level (schema version 9) rather than rows that hold reports and embeddings.
const storedCommunitiesSQL = `SELECT id, level, community_id, parent_id, size FROM communities ORDER BY level, community_id`

func readStoredCommunities(ctx context.Context, tx *sql.Tx, index *idlist.Index) ([]graph.StoredCommunity, error) {
	rows, err := tx.QueryContext(ctx, storedCommunitiesSQL)
	if err != nil {
		return nil, fmt.Errorf("read communities: %w", err)
	}
	var stored []graph.StoredCommunity
	pos := map[string]int{}
	for rows.Next() {
		var c graph.Community
		if err := rows.Scan(&c.ID, &c.Level, &c.CommunityID, &c.ParentID, &c.Size); err != nil {
			rows.Close()
			return nil, fmt.Errorf("read communities: %w", err)
		}
		pos[c.ID] = len(stored)
		stored = append(stored, graph.StoredCommunity{Community: c})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read communities: %w", err)
	}
	rows, err = tx.QueryContext(ctx, `SELECT community_id, entity_id FROM community_members`)
	if err != nil {
		return nil, fmt.Errorf("read community members: %w", err)
	}
	defer rows.Close()
	var comm, entity sql.RawBytes
	for rows.Next() {
		if err := rows.Scan(&comm, &entity); err != nil {
			return nil, fmt.Errorf("read community members: %w", err)
		}
		i, ok := pos[string(comm)]
		u, okU := index.Find(entity)
		if ok && okU {
			stored[i].Members = append(stored[i].Members, u)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read community members: %w", err)
	}
	for i := range stored {
		slices.Sort(stored[i].Members)
	}
	return stored, nil
}

// initialLevels turns the stored hierarchy into Leiden's initial levels (finest first) over n
// nodes: at each level, a node's number is the position of its community among the level's
// communities, -1 for a node without one.
func initialLevels(stored []graph.StoredCommunity, n int) [][]int32 {
	levels := 0
	for _, c := range stored {
		levels = max(levels, c.Level+1)
	}
	initial := make([][]int32, levels)
	next := make([]int32, levels) // communities numbered so far per level
	for k := range initial {
		initial[k] = make([]int32, n)
		for i := range initial[k] {
			initial[k][i] = -1
		}
	}
	for _, c := range stored {
		k := levels - 1 - c.Level
		for _, u := range c.Members {
			initial[k][u] = next[k]
		}
		next[k]++
	}
	return initial
}

// proposedCommunities turns Leiden's levels (finest first) into the communities of the
// hierarchy, ordered by level then number, each with its members and the index of its parent
// (see hierarchy, which lets go of the levels).
func proposedCommunities(levels [][]int32) ([]graph.ProposedCommunity, error) {
	var proposed []graph.ProposedCommunity
	index := map[string]int{}
	_, err := hierarchy(levels, func(c graph.Community, members []int32) error {
		parent := -1
		if c.ParentID != "" {
			i, ok := index[c.ParentID]
			if !ok {
				return fmt.Errorf("community %s: parent %s not built before it", c.ID, c.ParentID)
			}
			parent = i
		}
		index[c.ID] = len(proposed)
		proposed = append(proposed, graph.ProposedCommunity{Level: c.Level, Members: slices.Clone(members), Parent: parent})
		return nil
	})
	return proposed, err
}

// storeMatch writes a match over the stored communities: the removed ones go with their
// memberships, the new ones are written with theirs, and kept ones get their new parent ids.
func storeMatch(ctx context.Context, tx *sql.Tx, ids idlist.List, proposed []graph.ProposedCommunity, m graph.CommunityMatch) error {
	if len(m.Removed) > 0 {
		// One statement per community, by the primary keys: the IN list of a json_each made
		// SQLite scan the memberships.
		for _, q := range []string{
			`DELETE FROM community_members WHERE community_id = ?`,
			`DELETE FROM communities WHERE id = ?`,
		} {
			del, err := tx.PrepareContext(ctx, q)
			if err != nil {
				return err
			}
			for _, id := range m.Removed {
				if _, err := del.ExecContext(ctx, id); err != nil {
					del.Close()
					return fmt.Errorf("delete community %s: %w", id, err)
				}
			}
			del.Close()
		}
	}
	if len(m.Reparented) > 0 {
		upd, err := tx.PrepareContext(ctx, `UPDATE communities SET parent_id = ? WHERE id = ?`)
		if err != nil {
			return err
		}
		defer upd.Close()
		for _, i := range m.Reparented {
			c := m.Communities[i]
			if _, err := upd.ExecContext(ctx, c.ParentID, c.ID); err != nil {
				return fmt.Errorf("set parent of community %s: %w", c.ID, err)
			}
		}
	}
	ins, err := tx.PrepareContext(ctx, `
		INSERT INTO communities (id, level, community_id, parent_id, size) VALUES (?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer ins.Close()
	insMembers, err := tx.PrepareContext(ctx, insertMembersSQL(memberRows))
	if err != nil {
		return err
	}
	defer insMembers.Close()
	args := make([]any, 0, 2*memberRows)
	for i, c := range m.Communities {
		if m.Stored[i] >= 0 {
			continue
		}
		if _, err := ins.ExecContext(ctx, c.ID, c.Level, c.CommunityID, c.ParentID, c.Size); err != nil {
			return fmt.Errorf("write community %s: %w", c.ID, err)
		}
		for _, u := range proposed[i].Members {
			args = append(args, c.ID, ids.At(int(u)))
			if len(args) == cap(args) {
				if _, err := insMembers.ExecContext(ctx, args...); err != nil {
					return fmt.Errorf("write members of community %s: %w", c.ID, err)
				}
				args = args[:0]
			}
		}
	}
	if len(args) > 0 {
		if _, err := tx.ExecContext(ctx, insertMembersSQL(len(args)/2), args...); err != nil {
			return fmt.Errorf("write community members: %w", err)
		}
	}
	return nil
}

// metaValue reads a meta key in tx's snapshot.
func metaValue(ctx context.Context, tx *sql.Tx, key string) (string, bool, error) {
	var v string
	switch err := tx.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = ?`, key).Scan(&v); err {
	case nil:
		return v, true, nil
	case sql.ErrNoRows:
		return "", false, nil
	default:
		return "", false, fmt.Errorf("read meta %s: %w", key, err)
	}
}

// setMeta writes a meta key in tx; an empty value removes it, as in a Batch.
func setMeta(ctx context.Context, tx *sql.Tx, key, value string) error {
	if value == "" {
		if _, err := tx.ExecContext(ctx, `DELETE FROM meta WHERE key = ?`, key); err != nil {
			return fmt.Errorf("remove meta %s: %w", key, err)
		}
		return nil
	}
	if _, err := tx.ExecContext(ctx, `
		INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
		key, value); err != nil {
		return fmt.Errorf("write meta %s: %w", key, err)
	}
	return nil
}
