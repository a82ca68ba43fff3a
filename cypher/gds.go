package cypher

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/stratarag/strata/internal/graph"
)

// ComputeComponents implements graph.Store with GDS: on a projection of the entities of all
// layers with their RELATED relationships (gds_project_related.cypher) it writes
// Entity.componentId with gds.wcc.write (consecutive ids from 0), then Entity.degree (RELATED
// relationships) with batched Cypher. Counting the entities, dropping left-behind projections,
// projecting, WCC and dropping the projection share one transaction (GDS's catalog is not
// transactional, so a retried attempt names a projection of its own and the ones left by
// failed attempts are dropped after); the degrees need an auto-commit transaction of their own.
func (s *Store) ComputeComponents(ctx context.Context) (int, error) {
	if err := s.algorithmReady(ctx); err != nil {
		return 0, fmt.Errorf("cypher: compute components: %w", err)
	}
	if err := s.checkLease(); err != nil {
		return 0, err
	}
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	var made []string // projections of attempts that did not drop them
	defer func() {
		for _, name := range made {
			s.drop(context.WithoutCancel(ctx), name)
		}
	}()
	var n, components int64
	err := s.run.write(ctx, func(t tx) error {
		var err error
		if n, err = s.countEntitiesIn(ctx, t); err != nil || n == 0 {
			return err
		}
		if err := s.dropStaleTempGraphsIn(ctx, t); err != nil {
			return err
		}
		name, err := s.newTempGraphName(relatedGraphKind)
		if err != nil {
			return err
		}
		made = append(made, name)
		params := map[string]any{"graphName": name}
		if _, err := t.run(ctx, s.q.get(qGDSProjectRelated), params); err != nil {
			return err
		}
		rows, err := t.run(ctx, s.q.get(qGDSWCCWrite), params)
		if err != nil {
			return err
		}
		if len(rows) == 0 {
			return fmt.Errorf("%s: no result", qGDSWCCWrite)
		}
		f := fields{m: rows[0]}
		if components = f.int("componentCount"); f.err != nil {
			return f.err
		}
		if _, err := t.run(ctx, s.q.get(qGDSDrop), params); err != nil {
			return err
		}
		made = made[:len(made)-1]
		return nil
	})
	if err != nil || n == 0 {
		return 0, wrapIf("cypher: compute components", err)
	}
	if err := s.run.auto(ctx, s.q.get(qWriteDegree), nil); err != nil {
		return 0, fmt.Errorf("cypher: compute components: degree: %w", err)
	}
	// After both writes: an entity record copied while they ran belongs to the count before.
	if err := s.bumpGenerations(ctx, metaComponentGeneration); err != nil {
		return 0, fmt.Errorf("cypher: compute components: %w", err)
	}
	return int(components), nil
}

// newTempGraphName returns a fresh GDS catalog name for a short-lived projection of kind: the
// kind, then the database, then random hex (see tempGraphName).
func (s *Store) newTempGraphName(kind string) (string, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("name a projection: %w", err)
	}
	return kind + strings.TrimPrefix(s.projectionPrefix, "strata-entities:") + hex.EncodeToString(b[:]), nil
}

// staleTempGraphs lists in t this database's short-lived projections older than
// staleTempGraphAge: a killed process left them behind (see tempGraphName).
func (s *Store) staleTempGraphs(ctx context.Context, t tx) ([]string, error) {
	db := strings.TrimPrefix(s.projectionPrefix, "strata-entities:")
	rows, err := t.run(ctx, s.q.get(qGDSListStale), map[string]any{
		"prefixes":      []any{archGraphKind + db, relatedGraphKind + db},
		"maxAgeSeconds": int64(s.staleTempGraphAge / time.Second),
	})
	if err != nil {
		return nil, err
	}
	var stale []string
	for _, row := range rows {
		f := fields{m: row}
		stale = append(stale, f.str("graphName"))
		if f.err != nil {
			return nil, fmt.Errorf("%s: %w", qGDSListStale, f.err)
		}
	}
	return stale, nil
}

// dropStaleTempGraphsIn drops in t the projections staleTempGraphs lists.
func (s *Store) dropStaleTempGraphsIn(ctx context.Context, t tx) error {
	stale, err := s.staleTempGraphs(ctx, t)
	if err != nil {
		return err
	}
	for _, name := range stale {
		if _, err := t.run(ctx, s.q.get(qGDSDrop), map[string]any{"graphName": name}); err != nil {
			return err
		}
	}
	return nil
}

// ComputeCommunities implements graph.Store with GDS: on the entity projection it runs
// Leiden once (gds.leiden.mutate, every intermediate level, a fixed seed and one thread; see
// leiden), converts the levels (see buildHierarchy) and replaces all Community nodes,
// IN_COMMUNITY and CHILD_OF in batches, with the modularity of each level, which the same run
// yields, as UpdateCommunities' reference. A run that stops halfway leaves
// part of a hierarchy, which the ingest pipeline's stale-structure marker makes the next run
// replace.
func (s *Store) ComputeCommunities(ctx context.Context, p graph.LeidenParams) ([]graph.Community, error) {
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("cypher: compute communities: %w", err)
	}
	if err := s.algorithmReady(ctx); err != nil {
		return nil, fmt.Errorf("cypher: compute communities: %w", err)
	}
	if err := s.checkLease(); err != nil {
		return nil, err
	}
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	name, rels, n, err := s.projection(ctx)
	if err != nil {
		return nil, fmt.Errorf("cypher: compute communities: %w", err)
	}
	var rows []leidenRow
	var modularity []float64 // per level, coarsest first; none without relationships
	if n > 0 {
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
	if err := s.writeHierarchy(ctx, h, modularity); err != nil {
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

// countEntitiesIn counts the entities in t.
func (s *Store) countEntitiesIn(ctx context.Context, t tx) (int64, error) {
	rows, err := t.run(ctx, s.q.get(qCountEntities), nil)
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

// metaComponentGeneration is the StrataMeta key of the counter ComputeComponents moves on once
// it has written every entity's componentId and degree, which the entity graph generation does
// not count (the graph is the same).
const metaComponentGeneration = "components.generation"

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
	var st catalogState
	err := s.run.write(ctx, func(t tx) (err error) {
		st, err = s.catalogIn(ctx, t)
		return err
	})
	if err != nil {
		return catalogState{}, fmt.Errorf("list GDS projections: %w", err)
	}
	return st, nil
}

// catalogIn reads the current generation and lists the projections in t.
func (s *Store) catalogIn(ctx context.Context, t tx) (catalogState, error) {
	st := catalogState{graphs: map[string]int64{}}
	rows, err := t.run(ctx, s.q.get(qReadMeta), map[string]any{"key": metaEntityGraphGeneration})
	if err != nil {
		return catalogState{}, err
	}
	gen := "0"
	if len(rows) > 0 {
		f := fields{m: rows[0]}
		if gen = f.str("value"); f.err != nil {
			return catalogState{}, f.err
		}
	}
	st.current = s.projectionPrefix + gen
	rows, err = t.run(ctx, s.q.get(qGDSList), map[string]any{"prefix": s.projectionPrefix})
	if err != nil {
		return catalogState{}, err
	}
	for _, row := range rows {
		f := fields{m: row}
		st.graphs[f.str("graphName")] = f.int("relationshipCount")
		if f.err != nil {
			return catalogState{}, f.err
		}
	}
	return st, nil
}

// projection returns the name of the projection of the current entity graph, its number of
// (directed) relationships and the number of entities, projecting it if no process has yet, and
// drops the projections of older generations. Without entities there is nothing to project: it
// returns "", 0, 0. Counting, listing and projecting share one transaction.
func (s *Store) projection(ctx context.Context) (name string, rels, entities int64, err error) {
	var st catalogState
	err = s.run.write(ctx, func(t tx) error {
		st = catalogState{}
		var err error
		if entities, err = s.countEntitiesIn(ctx, t); err != nil || entities == 0 {
			return err
		}
		cs, err := s.catalogIn(ctx, t)
		if err != nil {
			return fmt.Errorf("list GDS projections: %w", err)
		}
		st = cs
		if _, ok := st.graphs[st.current]; ok {
			return nil
		}
		rows, err := t.run(ctx, s.q.get(qGDSProject), map[string]any{"graphName": st.current})
		if err != nil {
			return err
		}
		if len(rows) == 0 {
			return fmt.Errorf("%s: no result", qGDSProject)
		}
		f := fields{m: rows[0]}
		st.graphs[st.current] = f.int("relationshipCount")
		return f.err
	})
	if err != nil {
		if st.current == "" {
			return "", 0, 0, err
		}
		// Another process may have projected the same state first ("already loaded"):
		// then its projection serves; otherwise the error stands.
		again, lerr := s.catalog(ctx)
		if _, found := again.graphs[st.current]; lerr != nil || again.current != st.current || !found {
			return "", 0, 0, fmt.Errorf("project the entity graph as %s: %w", st.current, err)
		}
		st = again
	}
	if entities == 0 {
		return "", 0, 0, nil
	}
	for name := range st.graphs {
		if name != st.current {
			s.drop(ctx, name)
		}
	}
	return st.current, st.graphs[st.current], entities, nil
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
// processes), read back and removed, in one transaction (and removed after it should it fail).
func (s *Store) leiden(ctx context.Context, graphName string, p graph.LeidenParams) ([]leidenRow, []float64, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, nil, fmt.Errorf("leiden: name a property: %w", err)
	}
	property := "strataLeiden" + hex.EncodeToString(b[:])
	dropParams := map[string]any{"graphName": graphName, "property": property}
	dropped := false // by the transaction; otherwise after it
	defer func() {
		if dropped {
			return
		}
		_ = s.run.write(context.WithoutCancel(ctx), func(t tx) error {
			_, err := t.run(context.WithoutCancel(ctx), s.q.get(qGDSPropertyDrop), dropParams)
			return err
		})
	}()
	var out []leidenRow
	var q []float64
	err := s.run.write(ctx, func(t tx) error {
		dropped = false
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
		_, err = t.run(ctx, s.q.get(qGDSPropertyDrop), dropParams)
		dropped = err == nil
		return err
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

// writeHierarchy replaces the community hierarchy and records the modularity of its levels (an
// empty record removes the key): a batched delete, then the new communities, memberships,
// parent links and the record, in statements of batchSize rows and transactions of at most
// hierarchyTxWrites nodes and relationships, so that the heap a write needs does not grow with
// the graph while a hierarchy the size of multihop's (13 000 writes) takes one commit, where a
// transaction per statement took 30.
func (s *Store) writeHierarchy(ctx context.Context, h hierarchy, modularity []float64) error {
	// The community generation moves before the first write and after the last: a resident
	// reader that copied a level half-written copied it under the first number.
	if err := s.bumpGenerations(ctx, metaCommunityGeneration); err != nil {
		return err
	}
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
	err := s.writeSteps(ctx, []writeStep{
		{name: qCommunitiesCreate, rows: created},
		{name: qCommunitiesMembers, rows: memberRows(h.members), writes: memberWrites},
		{name: qCommunitiesParents, rows: parents},
		{name: qWriteMeta, rows: []map[string]any{{"key": graph.CommunityModularityKey, "value": graph.FormatModularity(modularity)}}},
	})
	if err != nil {
		return err
	}
	return s.bumpGenerations(ctx, metaCommunityGeneration)
}

// bumpGenerations moves the counters under keys on, in a transaction of their own.
func (s *Store) bumpGenerations(ctx context.Context, keys ...string) error {
	_, err := s.run.one(ctx, true, s.q.get(qBumpGeneration), map[string]any{"keys": keys})
	return err
}

// hierarchyTxWrites bounds the nodes and relationships one transaction of writeSteps writes: a
// few megabytes of transaction state on the server.
const hierarchyTxWrites = 16384

// writeStep is the rows of one UNWIND statement that writeSteps sends.
type writeStep struct {
	name string
	rows []map[string]any
	// writes is the number of nodes and relationships a row writes; nil counts one.
	writes func(row map[string]any) int
}

// writeSteps writes the rows of steps, in order, in statements of at most batchSize rows and
// in as few transactions of at most s.txWrites writes as that allows (one statement at least).
// Each transaction is committed before the next starts, so a step may use what an earlier one
// wrote.
func (s *Store) writeSteps(ctx context.Context, steps []writeStep) error {
	type statement struct {
		name string
		rows []map[string]any
	}
	var txs [][]statement
	var current []statement
	writes := 0
	for _, st := range steps {
		for _, part := range chunked(st.rows, s.batchSize) {
			n := len(part)
			if st.writes != nil {
				n = 0
				for _, row := range part {
					n += st.writes(row)
				}
			}
			if len(current) > 0 && writes+n > s.txWrites {
				txs, current, writes = append(txs, current), nil, 0
			}
			current = append(current, statement{st.name, part})
			writes += n
		}
	}
	if len(current) > 0 {
		txs = append(txs, current)
	}
	for _, stmts := range txs {
		err := s.run.write(ctx, func(t tx) error {
			for _, st := range stmts {
				if _, err := t.run(ctx, s.q.get(st.name), map[string]any{"rows": st.rows}); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// memberRows turns memberships into the rows of communities_members.cypher: one an entity, in
// the order entities first appear, with its communities in their order, so that the statement
// finds each entity once for all its levels.
func memberRows(members []membership) []map[string]any {
	index := map[string]int{}
	var rows []map[string]any
	var communities [][]string
	for _, m := range members {
		i, ok := index[m.entityID]
		if !ok {
			i = len(rows)
			index[m.entityID] = i
			rows = append(rows, map[string]any{"entityId": m.entityID})
			communities = append(communities, nil)
		}
		communities[i] = append(communities[i], m.communityID)
	}
	for i, row := range rows {
		row["communities"] = communities[i]
	}
	return rows
}

// memberWrites counts the IN_COMMUNITY relationships of a row of memberRows.
func memberWrites(row map[string]any) int {
	c, _ := row["communities"].([]string)
	return len(c)
}

// wrapIf adds context to a non-nil error.
func wrapIf(what string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", what, err)
}
