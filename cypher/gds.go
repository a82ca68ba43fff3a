package cypher

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"slices"

	"github.com/stratarag/strata/internal/graph"
)

// ComputeComponents implements graph.Store with GDS: on a projection of the entities of all
// layers with their RELATED relationships (gds_project_related.cypher) it writes
// Entity.componentId with gds.wcc.write (consecutive ids from 0), then Entity.degree (RELATED
// relationships) with batched Cypher.
func (s *Store) ComputeComponents(ctx context.Context) (int, error) {
	if err := s.algorithmReady(ctx); err != nil {
		return 0, fmt.Errorf("cypher: compute components: %w", err)
	}
	if err := s.checkLease(); err != nil {
		return 0, err
	}
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	n, err := s.countEntities(ctx)
	if err != nil || n == 0 {
		return 0, wrapIf("cypher: compute components", err)
	}
	name, err := s.tempGraphName(ctx, relatedGraphKind)
	if err != nil {
		return 0, fmt.Errorf("cypher: compute components: %w", err)
	}
	defer s.drop(context.WithoutCancel(ctx), name)
	var components int64
	err = s.run.write(ctx, func(t tx) error {
		if _, err := t.run(ctx, s.q.get(qGDSProjectRelated), map[string]any{"graphName": name}); err != nil {
			return err
		}
		rows, err := t.run(ctx, s.q.get(qGDSWCCWrite), map[string]any{"graphName": name})
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
	if err := s.run.auto(ctx, s.q.get(qWriteDegree), nil); err != nil {
		return 0, fmt.Errorf("cypher: compute components: degree: %w", err)
	}
	return int(components), nil
}

// ComputeCommunities implements graph.Store with GDS: on the entity projection it runs
// Leiden once (gds.leiden.mutate, every intermediate level, a fixed seed and one thread; see
// leiden), converts the levels (see buildHierarchy) and replaces all Community nodes,
// IN_COMMUNITY and CHILD_OF in batches, then records the modularity of each level, which the
// same run yields, as UpdateCommunities' reference. A run that stops halfway leaves
// part of a hierarchy, which the ingest pipeline's stale-structure marker makes the next run
// replace.
func (s *Store) ComputeCommunities(ctx context.Context, p graph.LeidenParams) ([]graph.Community, error) {
	if err := s.algorithmReady(ctx); err != nil {
		return nil, fmt.Errorf("cypher: compute communities: %w", err)
	}
	if p.MaxLevels < 1 {
		return nil, fmt.Errorf("cypher: compute communities: MaxLevels is %d, want at least 1", p.MaxLevels)
	}
	if err := s.checkLease(); err != nil {
		return nil, err
	}
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	n, err := s.countEntities(ctx)
	if err != nil {
		return nil, fmt.Errorf("cypher: compute communities: %w", err)
	}
	var rows []leidenRow
	var modularity []float64 // per level, coarsest first; none without relationships
	if n > 0 {
		name, rels, err := s.projection(ctx)
		if err != nil {
			return nil, fmt.Errorf("cypher: compute communities: %w", err)
		}
		if rels == 0 {
			// Leiden needs the weight property, which a graph without relationships lacks;
			// its answer would be one community per entity, so give that directly.
			rows, err = s.singletons(ctx)
		} else {
			rows, modularity, err = s.leiden(ctx, name, p)
		}
		if err != nil {
			return nil, fmt.Errorf("cypher: compute communities: %w", err)
		}
	}
	h, err := buildHierarchy(rows)
	if err != nil {
		return nil, fmt.Errorf("cypher: compute communities: %w", err)
	}
	if err := s.writeHierarchy(ctx, h); err != nil {
		return nil, fmt.Errorf("cypher: compute communities: %w", err)
	}
	// The reference of UpdateCommunities' drift bound; an empty record removes the key.
	err = s.run.write(ctx, func(t tx) error {
		return s.unwind(ctx, t, qWriteMeta, []map[string]any{{"key": graph.CommunityModularityKey, "value": graph.FormatModularity(modularity)}})
	})
	if err != nil {
		return nil, fmt.Errorf("cypher: compute communities: record modularity: %w", err)
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

// The entity projection is named after the database and the entity graph's generation, a
// counter every Apply that changes entities, RELATED or SUMMARIZED_BY increments in its own
// transaction (starting from the clock, so that a database emptied of its nodes but not of its
// projections does not count through its old projections' names again; see
// bump_generation.cypher). So the name says which state of the graph a projection holds: runs on the same
// state share it (components, then communities, then every query's paths, in any process),
// a projection of an older state is never used, and two ingests on one database cannot drop
// or recreate each other's projection of the current state.

// metaEntityGraphGeneration is the StrataMeta key of the generation counter.
const metaEntityGraphGeneration = "entity_graph.generation"

// projectionPrefix starts the names of this database's entity projections. Database names
// cannot contain ':', so one database's prefix never matches another's names.
func projectionPrefix(database string) string { return "strata-entities:" + database + ":" }

// catalogState is what the GDS catalog and the database say about the entity projection.
type catalogState struct {
	current string           // name of the projection of the current generation
	graphs  map[string]int64 // this database's entity projections: name -> relationship count
}

// catalog reads the current generation and lists the projections in one transaction. It runs
// as a write transaction so that, on a cluster, it reaches the server where the algorithms run
// and the catalog lives (see docker/README.md on topologies).
func (s *Store) catalog(ctx context.Context) (catalogState, error) {
	st := catalogState{graphs: map[string]int64{}}
	err := s.run.write(ctx, func(t tx) error {
		clear(st.graphs)
		rows, err := t.run(ctx, s.q.get(qReadMeta), map[string]any{"key": metaEntityGraphGeneration})
		if err != nil {
			return err
		}
		gen := "0"
		if len(rows) > 0 {
			f := fields{m: rows[0]}
			gen = f.str("value")
			if f.err != nil {
				return f.err
			}
		}
		st.current = s.projectionPrefix + gen
		rows, err = t.run(ctx, s.q.get(qGDSList), map[string]any{"prefix": s.projectionPrefix})
		if err != nil {
			return err
		}
		for _, row := range rows {
			f := fields{m: row}
			st.graphs[f.str("graphName")] = f.int("relationshipCount")
			if f.err != nil {
				return f.err
			}
		}
		return nil
	})
	if err != nil {
		return catalogState{}, fmt.Errorf("list GDS projections: %w", err)
	}
	return st, nil
}

// projection returns the name of the projection of the current entity graph and its number
// of (directed) relationships, projecting it if no process has yet, and drops the projections
// of older generations.
func (s *Store) projection(ctx context.Context) (string, int64, error) {
	st, err := s.catalog(ctx)
	if err != nil {
		return "", 0, err
	}
	rels, ok := st.graphs[st.current]
	if !ok {
		err := s.run.write(ctx, func(t tx) error {
			rows, err := t.run(ctx, s.q.get(qGDSProject), map[string]any{"graphName": st.current})
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
			// Another process may have projected the same state first ("already loaded"):
			// then its projection serves; otherwise the error stands.
			again, lerr := s.catalog(ctx)
			theirs, found := again.graphs[st.current]
			if lerr != nil || again.current != st.current || !found {
				return "", 0, fmt.Errorf("project the entity graph as %s: %w", st.current, err)
			}
			rels, st = theirs, again
		}
	}
	for name := range st.graphs {
		if name != st.current {
			s.drop(ctx, name)
		}
	}
	return st.current, rels, nil
}

// drop removes a stale projection to free server memory. Failing is harmless: a stale
// projection is never used, and the next projection tries again.
func (s *Store) drop(ctx context.Context, name string) {
	_ = s.run.write(ctx, func(t tx) error {
		_, err := t.run(ctx, s.q.get(qGDSDrop), map[string]any{"graphName": name})
		return err
	})
}

// leiden runs hierarchical Leiden once on the projection graphName (gds_leiden_mutate.cypher)
// and returns its rows and each level's modularity, coarsest first. The levels are written into
// the projection as a node property of this call's own (the projection may be shared with other
// processes), read back and removed.
func (s *Store) leiden(ctx context.Context, graphName string, p graph.LeidenParams) ([]leidenRow, []float64, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, nil, fmt.Errorf("leiden: name a property: %w", err)
	}
	property := "strataLeiden" + hex.EncodeToString(b[:])
	dropParams := map[string]any{"graphName": graphName, "property": property}
	defer func() {
		_ = s.run.write(context.WithoutCancel(ctx), func(t tx) error {
			_, err := t.run(context.WithoutCancel(ctx), s.q.get(qGDSPropertyDrop), dropParams)
			return err
		})
	}()
	var out []leidenRow
	var q []float64
	err := s.run.write(ctx, func(t tx) error {
		// A retried transaction finds the property of the attempt before.
		if _, err := t.run(ctx, s.q.get(qGDSPropertyDrop), dropParams); err != nil {
			return err
		}
		rows, err := t.run(ctx, s.q.get(qGDSLeidenMutate), map[string]any{
			"graphName":  graphName,
			"property":   property,
			"gamma":      p.Gamma,
			"theta":      p.Theta,
			"tolerance":  p.Tolerance,
			"maxLevels":  int64(p.MaxLevels),
			"randomSeed": p.Seed,
		})
		if err != nil {
			return err
		}
		if len(rows) == 0 {
			return fmt.Errorf("%s: no result", qGDSLeidenMutate)
		}
		q = q[:0]
		f := fields{m: rows[0]}
		for _, v := range f.list("modularities") {
			x, ok := v.(float64)
			if !ok {
				return fmt.Errorf("%s: modularity %T, want float", qGDSLeidenMutate, v)
			}
			q = append(q, x)
		}
		if f.err != nil {
			return fmt.Errorf("%s: %w", qGDSLeidenMutate, f.err)
		}
		slices.Reverse(q)
		rows, err = t.run(ctx, s.q.get(qGDSLeidenLevels), dropParams)
		if err != nil {
			return err
		}
		out = out[:0]
		for _, row := range rows {
			f := fields{m: row}
			r := leidenRow{entityID: f.str("entityId")}
			if c, ok := row["levels"].(int64); ok { // one level, should GDS give it bare
				r.levels = []int64{c}
			} else {
				r.levels = f.ints("levels")
			}
			if f.err != nil {
				return fmt.Errorf("%s: %w", qGDSLeidenLevels, f.err)
			}
			if r.entityID == "" { // deleted since the projection was made
				continue
			}
			out = append(out, r)
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("leiden: %w", err)
	}
	return out, q, nil
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

// writeHierarchy replaces the community hierarchy: a batched delete, then the new
// communities, memberships and parent links, each batch in a transaction of its own, so that
// the heap a write needs does not grow with the graph.
func (s *Store) writeHierarchy(ctx context.Context, h hierarchy) error {
	if err := s.run.auto(ctx, s.q.get(qCommunitiesDelete), nil); err != nil {
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
		for _, part := range chunked(step.rows, s.batchSize) {
			if err := s.run.write(ctx, func(t tx) error { return s.unwind(ctx, t, step.name, part) }); err != nil {
				return err
			}
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
