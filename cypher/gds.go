package cypher

import (
	"context"
	"fmt"

	"github.com/stratarag/strata/internal/graph"
)

// ComputeComponents implements graph.Store with GDS: it projects the entity graph (all
// layers, RELATED and SUMMARIZED_BY, undirected), writes Entity.componentId with gds.wcc.write
// (consecutive ids from 0) and Entity.degree (RELATED relationships) with Cypher. The
// projection stays in the GDS catalog for ShortestPaths.
func (s *Store) ComputeComponents(ctx context.Context) (int, error) {
	if err := s.algorithmReady(ctx); err != nil {
		return 0, fmt.Errorf("cypher: compute components: %w", err)
	}
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	n, err := s.countEntities(ctx)
	if err != nil || n == 0 {
		return 0, wrapIf("cypher: compute components", err)
	}
	if _, err := s.project(ctx); err != nil {
		return 0, fmt.Errorf("cypher: compute components: %w", err)
	}
	var components int64
	err = s.run.write(ctx, func(t tx) error {
		rows, err := t.run(ctx, s.q.get(qGDSWCCWrite), map[string]any{"graphName": s.graphName})
		if err != nil {
			return err
		}
		if len(rows) == 0 {
			return fmt.Errorf("%s: no result", qGDSWCCWrite)
		}
		f := fields{m: rows[0]}
		components = f.int("componentCount")
		return f.err
	})
	if err != nil {
		return 0, fmt.Errorf("cypher: compute components: %w", err)
	}
	err = s.run.write(ctx, func(t tx) error {
		_, err := t.run(ctx, s.q.get(qWriteDegree), nil)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("cypher: compute components: degree: %w", err)
	}
	return int(components), nil
}

// ComputeCommunities implements graph.Store with GDS: it projects the entity graph, runs
// gds.leiden.stream with every intermediate level, a fixed seed and one thread, converts the
// levels (see buildHierarchy) and replaces all Community nodes, IN_COMMUNITY and CHILD_OF in
// one write transaction.
func (s *Store) ComputeCommunities(ctx context.Context, p graph.LeidenParams) ([]graph.Community, error) {
	if err := s.algorithmReady(ctx); err != nil {
		return nil, fmt.Errorf("cypher: compute communities: %w", err)
	}
	if p.MaxLevels < 1 {
		return nil, fmt.Errorf("cypher: compute communities: MaxLevels is %d, want at least 1", p.MaxLevels)
	}
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	n, err := s.countEntities(ctx)
	if err != nil {
		return nil, fmt.Errorf("cypher: compute communities: %w", err)
	}
	var rows []leidenRow
	if n > 0 {
		rels, err := s.project(ctx)
		if err != nil {
			return nil, fmt.Errorf("cypher: compute communities: %w", err)
		}
		if rels == 0 {
			// Leiden needs the weight property, which a graph without relationships lacks;
			// its answer would be one community per entity, so give that directly.
			rows, err = s.singletons(ctx)
		} else {
			rows, err = s.leiden(ctx, p)
		}
		if err != nil {
			return nil, fmt.Errorf("cypher: compute communities: %w", err)
		}
	}
	h, err := buildHierarchy(rows)
	if err != nil {
		return nil, fmt.Errorf("cypher: compute communities: %w", err)
	}
	if err := s.run.write(ctx, func(t tx) error { return s.writeHierarchy(ctx, t, h) }); err != nil {
		return nil, fmt.Errorf("cypher: compute communities: %w", err)
	}
	return h.communities, nil
}

// algorithmReady fails early with ErrNoGDS when the plugin is missing.
func (s *Store) algorithmReady(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if s.gds == "" {
		return ErrNoGDS
	}
	return nil
}

func (s *Store) countEntities(ctx context.Context) (int64, error) {
	rows, err := s.readRows(ctx, qCountEntities, nil)
	if err != nil {
		return 0, err
	}
	if len(rows) == 0 {
		return 0, fmt.Errorf("%s: no result", qCountEntities)
	}
	f := fields{m: rows[0]}
	return f.int("entities"), f.err
}

// project drops the entity projection and projects it again, so that runs are idempotent and
// see the current graph. It returns the number of (directed) projected relationships.
func (s *Store) project(ctx context.Context) (int64, error) {
	var rels int64
	err := s.run.write(ctx, func(t tx) error {
		if _, err := t.run(ctx, s.q.get(qGDSDrop), map[string]any{"graphName": s.graphName}); err != nil {
			return err
		}
		rows, err := t.run(ctx, s.q.get(qGDSProject), map[string]any{"graphName": s.graphName})
		if err != nil {
			return err
		}
		if len(rows) == 0 {
			return fmt.Errorf("%s: no result", qGDSProject)
		}
		f := fields{m: rows[0]}
		rels = f.int("relationshipCount")
		return f.err
	})
	if err != nil {
		return 0, fmt.Errorf("project the entity graph: %w", err)
	}
	return rels, nil
}

// dropProjection removes the projection after the entity graph changed. Failing to drop it is
// not an error of the write that caused it: ShortestPaths falls back to Cypher when a GDS run
// fails, and the next algorithm run replaces the projection anyway.
func (s *Store) dropProjection(ctx context.Context) {
	if s.gds == "" {
		return
	}
	_ = s.run.write(ctx, func(t tx) error {
		_, err := t.run(ctx, s.q.get(qGDSDrop), map[string]any{"graphName": s.graphName})
		return err
	})
}

func (s *Store) leiden(ctx context.Context, p graph.LeidenParams) ([]leidenRow, error) {
	var out []leidenRow
	err := s.run.write(ctx, func(t tx) error {
		rows, err := t.run(ctx, s.q.get(qGDSLeidenStream), map[string]any{
			"graphName":  s.graphName,
			"gamma":      p.Gamma,
			"theta":      p.Theta,
			"tolerance":  p.Tolerance,
			"maxLevels":  int64(p.MaxLevels),
			"randomSeed": p.Seed,
		})
		if err != nil {
			return err
		}
		out = out[:0]
		for _, row := range rows {
			f := fields{m: row}
			r := leidenRow{entityID: f.str("entityId"), levels: f.ints("intermediateCommunityIds")}
			if len(r.levels) == 0 {
				r.levels = []int64{f.int("communityId")}
			}
			if f.err != nil {
				return fmt.Errorf("%s: %w", qGDSLeidenStream, f.err)
			}
			if r.entityID == "" { // deleted since the projection was made
				continue
			}
			out = append(out, r)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("leiden: %w", err)
	}
	return out, nil
}

// singletons puts every entity in a community of its own at one level.
func (s *Store) singletons(ctx context.Context) ([]leidenRow, error) {
	rows, err := s.readRows(ctx, qReadEntityIDs, nil)
	if err != nil {
		return nil, err
	}
	out := make([]leidenRow, 0, len(rows))
	for i, row := range rows {
		f := fields{m: row}
		out = append(out, leidenRow{entityID: f.str("id"), levels: []int64{int64(i)}})
		if f.err != nil {
			return nil, f.err
		}
	}
	return out, nil
}

// writeHierarchy replaces the community hierarchy inside one transaction.
func (s *Store) writeHierarchy(ctx context.Context, t tx, h hierarchy) error {
	if _, err := t.run(ctx, s.q.get(qCommunitiesDelete), nil); err != nil {
		return err
	}
	var created, parents []map[string]any
	for _, c := range h.communities {
		created = append(created, map[string]any{
			"id": c.ID, "level": int64(c.Level), "communityId": c.CommunityID, "size": int64(c.Size),
		})
		if c.ParentID != "" {
			parents = append(parents, map[string]any{"child": c.ID, "parent": c.ParentID})
		}
	}
	members := make([]map[string]any, len(h.members))
	for i, m := range h.members {
		members[i] = map[string]any{"entityId": m.entityID, "community": m.communityID}
	}
	for _, step := range []struct {
		name string
		rows []map[string]any
	}{
		{qCommunitiesCreate, created},
		{qCommunitiesMembers, members},
		{qCommunitiesParents, parents},
	} {
		if err := s.unwind(ctx, t, step.name, step.rows); err != nil {
			return err
		}
	}
	return nil
}

// wrapIf adds context to a non-nil error.
func wrapIf(what string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", what, err)
}
