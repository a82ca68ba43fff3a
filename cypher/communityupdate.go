package cypher

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strconv"

	"github.com/stratarag/strata/internal/graph"
)

// maxSeededLevels is how many levels gds_project_seeded.cypher gives seeds for; a stored
// hierarchy with more levels is recomputed fresh.
const maxSeededLevels = 10

// UpdateCommunities implements graph.Store with GDS (see graph.Analyzer.UpdateCommunities).
//
// GDS seeds only the first local moving phase of Leiden, not the later levels, and a seeded
// run that moves nothing yields one level (its seeds) and fails in stream mode (see
// gds_leiden_seeded_stats.cypher). So each stored level is seeded on its own: on a private
// projection holding every entity's stored community per level, one level of Leiden (local
// moving of single entities, maxLevels 1) starts from that level's communities, new entities
// alone, and its modularity is that level's. The levels are then nested coarsest first as
// ComputeCommunities nests GDS's (buildHierarchy), matched with graph.MatchCommunities and
// written as a diff in one transaction: removed communities deleted, new ones created with
// their IN_COMMUNITY, CHILD_OF set for new and reparented ones; kept communities' properties
// are not touched. The number of levels is the stored one; a graph that changed enough to
// want another falls past the drift bound, and the fresh computation decides.
func (s *Store) UpdateCommunities(ctx context.Context, p graph.LeidenParams, changed []string) (graph.CommunityUpdate, error) {
	if err := p.Validate(); err != nil {
		return graph.CommunityUpdate{}, fmt.Errorf("cypher: update communities: %w", err)
	}
	if err := s.algorithmReady(ctx); err != nil {
		return graph.CommunityUpdate{}, fmt.Errorf("cypher: update communities: %w", err)
	}
	if err := s.checkLease(); err != nil {
		return graph.CommunityUpdate{}, err
	}
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	out, err := s.updateCommunities(ctx, p, changed)
	if err != nil {
		return graph.CommunityUpdate{}, fmt.Errorf("cypher: update communities: %w", err)
	}
	return out, nil
}

func (s *Store) updateCommunities(ctx context.Context, p graph.LeidenParams, changed []string) (graph.CommunityUpdate, error) {
	var out graph.CommunityUpdate
	idRows, err := s.readRows(ctx, qReadEntityIDs, nil)
	if err != nil {
		return out, err
	}
	ids := make([]string, len(idRows)) // node number -> entity id, ascending
	for i, row := range idRows {
		f := fields{m: row}
		ids[i] = f.str("id")
		if f.err != nil {
			return out, f.err
		}
	}
	number := make(map[string]int32, len(ids))
	for i, id := range ids {
		number[id] = int32(i)
	}
	stored, err := s.storedCommunities(ctx, number)
	if err != nil {
		return out, err
	}
	levels := 0 // stored levels that still have a member
	for _, c := range stored {
		if len(c.Members) > 0 {
			levels = max(levels, c.Level+1)
		}
	}

	var rows []leidenRow
	var q []float64 // per level, coarsest first
	if levels > 0 && levels <= maxSeededLevels && len(ids) > 0 {
		rows, q, err = s.seededLeiden(ctx, p, ids, stored, levels)
		if err != nil {
			return out, err
		}
	}
	var reference []float64
	if rows != nil {
		v, ok, err := s.Meta(ctx, graph.CommunityModularityKey)
		if err != nil {
			return out, err
		}
		if ok {
			reference = graph.ParseModularity(v)
		}
	}
	var freshRows []leidenRow
	var freshQ []float64
	if rows == nil || reference == nil {
		// Nothing to seed from, or no record (communities computed before records were
		// kept): the fresh result is the reference, kept when the seeded one falls short.
		if freshRows, freshQ, err = s.freshLeiden(ctx, p); err != nil {
			return out, err
		}
		if rows == nil {
			reference = nil
		} else {
			reference = freshQ
		}
	}
	if rows == nil || graph.Drifted(q, reference) {
		out.Fresh = true
		if freshRows == nil {
			if freshRows, freshQ, err = s.freshLeiden(ctx, p); err != nil {
				return out, err
			}
		}
		rows, q = freshRows, freshQ
	}
	out.Modularity = q

	h, err := buildHierarchy(rows)
	if err != nil {
		return out, err
	}
	proposed, err := proposedCommunities(h, number)
	if err != nil {
		return out, err
	}
	var changedNodes []int32
	for _, id := range changed {
		if u, ok := number[id]; ok {
			changedNodes = append(changedNodes, u)
		}
	}
	m := graph.MatchCommunities(stored, proposed, changedNodes)
	out.Total, out.Kept, out.Removed = len(m.Communities), m.Kept(), len(m.Removed)
	for _, i := range m.Report {
		c := m.Communities[i]
		out.Report = append(out.Report, graph.Community{
			ID: c.ID, Level: c.Level, CommunityID: c.CommunityID, ParentID: c.ParentID, Size: c.Size,
		})
	}
	if err := s.storeMatch(ctx, ids, proposed, m, out.Fresh, q); err != nil {
		return out, err
	}
	return out, nil
}

// storedCommunities reads every community with its members as node numbers (entities no
// longer stored left out), ordered by level then community id.
func (s *Store) storedCommunities(ctx context.Context, number map[string]int32) ([]graph.StoredCommunity, error) {
	rows, err := s.readRows(ctx, qReadStoredCommunities, nil)
	if err != nil {
		return nil, err
	}
	stored := make([]graph.StoredCommunity, 0, len(rows))
	for _, row := range rows {
		f := fields{m: row}
		c := graph.StoredCommunity{Community: graph.Community{
			ID: f.str("id"), Level: int(f.int("level")), CommunityID: f.int("communityId"),
			ParentID: f.str("parentId"), Size: int(f.int("size")),
		}}
		for _, id := range f.strs("members") {
			if u, ok := number[id]; ok {
				c.Members = append(c.Members, u)
			}
		}
		if f.err != nil {
			return nil, fmt.Errorf("%s: %w", qReadStoredCommunities, f.err)
		}
		slices.Sort(c.Members)
		stored = append(stored, c)
	}
	sort.Slice(stored, func(i, j int) bool {
		a, b := stored[i], stored[j]
		if a.Level != b.Level {
			return a.Level < b.Level
		}
		return a.CommunityID < b.CommunityID
	})
	return stored, nil
}

// seededLeiden runs one seeded level of Leiden per stored level (see UpdateCommunities) and
// returns the rows buildHierarchy reads (levels finest first, as GDS lists them) and each
// level's modularity, coarsest first.
func (s *Store) seededLeiden(ctx context.Context, p graph.LeidenParams, ids []string, stored []graph.StoredCommunity, levels int) ([]leidenRow, []float64, error) {
	name, err := s.tempGraphName(ctx, relatedGraphKind)
	if err != nil {
		return nil, nil, err
	}
	defer s.drop(context.WithoutCancel(ctx), name)
	var rels int64
	err = s.run.write(ctx, func(t tx) error {
		rows, err := t.run(ctx, s.q.get(qGDSProjectSeeded), map[string]any{"graphName": name, "levels": int64(levels)})
		if err != nil {
			return err
		}
		if len(rows) == 0 {
			return fmt.Errorf("%s: no result", qGDSProjectSeeded)
		}
		f := fields{m: rows[0]}
		rels = f.int("relationshipCount")
		return f.err
	})
	if err != nil {
		return nil, nil, fmt.Errorf("project the seeded entity graph: %w", err)
	}
	if rels == 0 {
		return nil, nil, nil // Leiden needs weights: the fresh path gives singletons
	}
	seeds := make([][]int64, levels) // level -> node number -> stored community id, -1 none
	for k := range seeds {
		seeds[k] = make([]int64, len(ids))
		for i := range seeds[k] {
			seeds[k][i] = -1
		}
	}
	for _, c := range stored {
		if c.Level < levels {
			for _, u := range c.Members {
				seeds[c.Level][u] = c.CommunityID
			}
		}
	}
	index := make(map[string]int, len(ids))
	for i, id := range ids {
		index[id] = i
	}
	out := make([]leidenRow, len(ids))
	for i, id := range ids {
		out[i] = leidenRow{entityID: id, levels: make([]int64, levels)}
	}
	q := make([]float64, levels)
	for level := 0; level < levels; level++ {
		gdsLevel := levels - 1 - level
		params := map[string]any{
			"graphName":    name,
			"seedProperty": "seed" + strconv.Itoa(level),
			"gamma":        p.Gamma,
			"theta":        p.Theta,
			"randomSeed":   p.Seed,
		}
		var stopped bool
		var got map[int]int64
		err := s.run.write(ctx, func(t tx) error {
			rows, err := t.run(ctx, s.q.get(qGDSLeidenSeededStats), params)
			if err != nil {
				return err
			}
			if len(rows) == 0 {
				return fmt.Errorf("%s: no result", qGDSLeidenSeededStats)
			}
			f := fields{m: rows[0]}
			stopped = f.int("ranLevels") == 1 && f.bool("didConverge")
			q[level] = f.float("modularity")
			if f.err != nil || stopped {
				return f.err
			}
			rows, err = t.run(ctx, s.q.get(qGDSLeidenSeededStream), params)
			if err != nil {
				return err
			}
			got = make(map[int]int64, len(rows))
			for _, row := range rows {
				f := fields{m: row}
				id, c := f.str("entityId"), f.int("communityId")
				if f.err != nil {
					return fmt.Errorf("%s: %w", qGDSLeidenSeededStream, f.err)
				}
				if i, ok := index[id]; ok {
					got[i] = c
				}
			}
			return nil
		})
		if err != nil {
			return nil, nil, fmt.Errorf("seeded leiden, level %d: %w", level, err)
		}
		// Stopped at once: the seeds are the result, an entity without one alone (numbers
		// past every seed, as GDS gives them).
		next := slices.Max(seeds[level]) + 1
		for i := range out {
			c, ok := got[i]
			if stopped || !ok {
				c = seeds[level][i]
				if c < 0 {
					c = next
					next++
				}
			}
			out[i].levels[gdsLevel] = c
		}
	}
	return out, q, nil
}

// freshLeiden runs ComputeCommunities' Leiden on the shared projection and returns its rows and
// its modularity per level, coarsest first (nil for a graph without relationships).
func (s *Store) freshLeiden(ctx context.Context, p graph.LeidenParams) ([]leidenRow, []float64, error) {
	name, rels, n, err := s.projection(ctx)
	if err != nil || n == 0 {
		return []leidenRow{}, nil, err
	}
	if rels == 0 {
		rows, err := s.singletons(ctx)
		return rows, nil, err
	}
	return s.leiden(ctx, name, p)
}

// proposedCommunities turns a built hierarchy into MatchCommunities' proposed communities, in
// the hierarchy's order (level, then number), members as node numbers.
func proposedCommunities(h hierarchy, number map[string]int32) ([]graph.ProposedCommunity, error) {
	index := make(map[string]int, len(h.communities))
	proposed := make([]graph.ProposedCommunity, len(h.communities))
	for i, c := range h.communities {
		index[c.ID] = i
		parent := -1
		if c.ParentID != "" {
			pi, ok := index[c.ParentID]
			if !ok {
				return nil, fmt.Errorf("community %s: parent %s not built before it", c.ID, c.ParentID)
			}
			parent = pi
		}
		proposed[i] = graph.ProposedCommunity{Level: c.Level, Parent: parent}
	}
	for _, m := range h.members {
		i, ok := index[m.communityID]
		u, okU := number[m.entityID]
		if !ok || !okU {
			return nil, fmt.Errorf("member %s of community %s: unknown", m.entityID, m.communityID)
		}
		proposed[i].Members = append(proposed[i].Members, u)
	}
	for i := range proposed {
		slices.Sort(proposed[i].Members)
	}
	return proposed, nil
}

// storeMatch writes a match over the stored communities in one transaction, and the
// modularity record after a fresh computation.
func (s *Store) storeMatch(ctx context.Context, ids []string, proposed []graph.ProposedCommunity, m graph.CommunityMatch, fresh bool, q []float64) error {
	if m.Unchanged() && !fresh {
		return nil
	}
	var removed, created, parents []map[string]any
	var members []membership
	for _, id := range m.Removed {
		removed = append(removed, map[string]any{"id": id})
	}
	for i, c := range m.Communities {
		if m.Stored[i] >= 0 {
			continue
		}
		created = append(created, map[string]any{
			"id": c.ID, "level": int64(c.Level), "communityId": c.CommunityID, "size": int64(c.Size),
		})
		for _, u := range proposed[i].Members {
			members = append(members, membership{entityID: ids[u], communityID: c.ID})
		}
		if c.ParentID != "" {
			parents = append(parents, map[string]any{"child": c.ID, "parent": c.ParentID})
		}
	}
	for _, i := range m.Reparented {
		c := m.Communities[i]
		parents = append(parents, map[string]any{"child": c.ID, "parent": c.ParentID})
	}
	return s.run.write(ctx, func(t tx) error {
		for _, step := range []struct {
			name string
			rows []map[string]any
		}{
			{qCommunitiesRemove, removed},
			{qCommunitiesCreate, created},
			{qCommunitiesMembers, memberRows(members)},
			{qCommunitiesReparent, parents},
		} {
			if err := s.unwind(ctx, t, step.name, step.rows); err != nil {
				return err
			}
		}
		if _, err := t.run(ctx, s.q.get(qBumpGeneration), map[string]any{"keys": []string{metaCommunityGeneration}}); err != nil {
			return err
		}
		if fresh {
			return s.unwind(ctx, t, qWriteMeta, []map[string]any{{"key": graph.CommunityModularityKey, "value": graph.FormatModularity(q)}})
		}
		return nil
	})
}
