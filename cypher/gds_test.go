package cypher

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/stratarag/strata/internal/graph"
)

func TestAlgorithmsNeedGDS(t *testing.T) {
	s, f := newFakeStore(t, Config{}, "")
	if _, err := s.ComputeComponents(t.Context()); !errors.Is(err, ErrNoGDS) {
		t.Errorf("ComputeComponents without GDS = %v, want ErrNoGDS", err)
	}
	if _, err := s.ComputeCommunities(t.Context(), graph.DefaultLeidenParams()); !errors.Is(err, ErrNoGDS) {
		t.Errorf("ComputeCommunities without GDS = %v, want ErrNoGDS", err)
	}
	sequence(t, f)
}

func TestComputeComponents(t *testing.T) {
	s, f := newFakeStore(t, Config{Database: "graphs"}, "2.13.0")
	f.answer = answers(map[string][]map[string]any{
		qCountEntities:     {{"entities": int64(8)}},
		qGDSProjectRelated: {{"nodeCount": int64(8), "relationshipCount": int64(6)}},
		qGDSWCCWrite:       {{"componentCount": int64(4), "nodePropertiesWritten": int64(8)}},
		// A killed ingest left a projection behind.
		qGDSListStale: {{"graphName": "strata-arch:graphs:0123"}},
	})
	n, err := s.ComputeComponents(t.Context())
	if err != nil || n != 4 {
		t.Fatalf("ComputeComponents = %d, %v; want 4", n, err)
	}
	// Its own RELATED-only projection, named outside the entity-graph catalog, dropped after
	// WCC; before it, the left-behind projection is dropped. All of that is one transaction;
	// the degrees are written after it, then the components generation moves on.
	sequence(t, f, qCountEntities, qGDSListStale, qGDSDrop, qGDSProjectRelated, qGDSWCCWrite, qGDSDrop, qWriteDegree, qBumpGeneration)
	for _, c := range f.calls[:len(f.calls)-2] {
		if !c.write || c.txn != f.calls[0].txn {
			t.Errorf("%s ran in transaction %d (write %v), want the write transaction %d", c.name, c.txn, c.write, f.calls[0].txn)
		}
	}
	for _, c := range f.calls[len(f.calls)-2:] {
		if c.txn == f.calls[0].txn {
			t.Errorf("%s ran in the transaction of the projection, want one of its own", c.name)
		}
	}
	if keys := f.only(qBumpGeneration)[0].params["keys"]; !reflect.DeepEqual(keys, []string{metaComponentGeneration}) {
		t.Errorf("generations bumped %v, want [%s]", keys, metaComponentGeneration)
	}
	list := f.only(qGDSListStale)[0].params
	if p := list["prefixes"]; !reflect.DeepEqual(p, []any{"strata-arch:graphs:", "strata-related:graphs:"}) {
		t.Errorf("stale projections listed with prefixes %v", p)
	}
	if a := list["maxAgeSeconds"]; a != int64(6*3600) {
		t.Errorf("stale projections listed with age %v, want 6 h", a)
	}
	name, _ := f.only(qGDSProjectRelated)[0].params["graphName"].(string)
	if !strings.HasPrefix(name, "strata-related:graphs:") {
		t.Errorf("projected as %q, want a strata-related:graphs: name", name)
	}
	drops := f.only(qGDSDrop)
	if g := drops[0].params["graphName"]; g != "strata-arch:graphs:0123" {
		t.Errorf("first drop of %v, want the stale projection", g)
	}
	for _, c := range []call{f.only(qGDSWCCWrite)[0], drops[1]} {
		if g := c.params["graphName"]; g != name {
			t.Errorf("%s used graph %v, want %s", c.name, g, name)
		}
	}

	// An empty entity graph has no components and needs no GDS call.
	s, f = newFakeStore(t, Config{}, "2.13.0")
	f.answer = answers(map[string][]map[string]any{qCountEntities: {{"entities": int64(0)}}})
	if n, err := s.ComputeComponents(t.Context()); err != nil || n != 0 {
		t.Errorf("ComputeComponents on an empty graph = %d, %v", n, err)
	}
	sequence(t, f, qCountEntities)
}

func TestComputeCommunities(t *testing.T) {
	s, f := newFakeStore(t, Config{BatchSize: 3}, "2.13.0")
	f.answer = answers(map[string][]map[string]any{
		qCountEntities: {{"entities": int64(3)}},
		// The projection of the current graph (generation 0: no meta value yet) exists, as
		// ComputeComponents leaves it: it is reused, not projected again.
		qGDSList:         {{"graphName": "strata-entities::0", "relationshipCount": int64(2)}},
		qGDSLeidenMutate: {{"modularities": []any{0.25, 0.5}}}, // finest first
		qGDSLeidenLevels: {
			{"entityId": "B", "levels": []any{int64(9), int64(4)}},
			{"entityId": "A", "levels": []any{int64(9), int64(4)}},
			{"entityId": "C", "levels": []any{int64(2), int64(4)}},
			{"entityId": nil, "levels": []any{int64(1), int64(1)}},
		},
	})
	p := graph.LeidenParams{Gamma: 1, Theta: 0.01, Tolerance: 1e-4, MaxLevels: 10, Seed: 42}
	got, err := s.ComputeCommunities(t.Context(), p)
	if err != nil {
		t.Fatal(err)
	}
	want := []graph.Community{
		{ID: "0-0", Level: 0, CommunityID: 0, Size: 3},
		{ID: "1-0", Level: 1, CommunityID: 0, ParentID: "0-0", Size: 2},
		{ID: "1-1", Level: 1, CommunityID: 1, ParentID: "0-0", Size: 1},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("communities\n got  %+v\n want %+v", got, want)
	}
	// One Leiden run, whose levels are read from and then removed from the projection (also
	// before, for a retried transaction).
	// The community generation moves before and after the hierarchy is written.
	sequence(t, f, qCountEntities, qReadMeta, qGDSList, qGDSPropertyDrop, qGDSLeidenMutate, qGDSLeidenLevels, qGDSPropertyDrop,
		qBumpGeneration, qCommunitiesDelete, qCommunitiesCreate, qCommunitiesMembers, qCommunitiesParents, qWriteMeta, qBumpGeneration)
	for _, c := range f.only(qBumpGeneration) {
		if !reflect.DeepEqual(c.params["keys"], []string{metaCommunityGeneration}) {
			t.Errorf("bump_generation keys = %v, want the communities'", c.params["keys"])
		}
	}
	// Transactions: the catalog; Leiden with its property; the delete (auto-commit); the
	// hierarchy with the modularity record, small enough for one.
	txns := map[string]int{}
	for _, c := range f.calls {
		if !c.write {
			t.Errorf("%s did not run in a write transaction", c.name)
		}
		txns[c.name] = c.txn
	}
	for _, same := range [][]string{
		{qCountEntities, qReadMeta, qGDSList},
		{qGDSLeidenMutate, qGDSLeidenLevels, qGDSPropertyDrop},
		{qCommunitiesCreate, qCommunitiesMembers, qCommunitiesParents, qWriteMeta},
	} {
		for _, name := range same[1:] {
			if txns[name] != txns[same[0]] {
				t.Errorf("%s ran in transaction %d, %s in %d; want one", name, txns[name], same[0], txns[same[0]])
			}
		}
	}
	if txns[qCommunitiesDelete] == txns[qCommunitiesCreate] || txns[qGDSLeidenMutate] == txns[qGDSList] {
		t.Errorf("transactions %v: want the catalog, Leiden, the delete and the hierarchy apart", txns)
	}
	leiden := f.only(qGDSLeidenMutate)[0].params
	property, _ := leiden["property"].(string)
	wantProperty := map[string]any{"graphName": "strata-entities::0", "property": property}
	for _, c := range append(f.only(qGDSLeidenLevels), f.only(qGDSPropertyDrop)...) {
		if !reflect.DeepEqual(c.params, wantProperty) {
			t.Errorf("%s params = %#v, want %#v", c.name, c.params, wantProperty)
		}
	}
	// The modularity of each level, coarsest first, is recorded for UpdateCommunities.
	if meta := rowsParam(t, f.only(qWriteMeta)[0]); !reflect.DeepEqual(meta, []map[string]any{{"key": graph.CommunityModularityKey, "value": "0.5 0.25"}}) {
		t.Errorf("meta rows %v, want the modularities coarsest first", meta)
	}
	if !strings.HasPrefix(property, "strataLeiden") {
		t.Errorf("leiden property = %q, want a name of its own", property)
	}
	wantParams := map[string]any{"graphName": "strata-entities::0", "property": property, "gamma": 1.0, "theta": 0.01, "tolerance": 1e-4,
		"maxLevels": int64(10), "randomSeed": int64(42)}
	if !reflect.DeepEqual(leiden, wantParams) {
		t.Errorf("leiden params = %#v, want %#v", leiden, wantParams)
	}
	// One row an entity, with its community at every level, coarsest first.
	members := rowsParam(t, f.only(qCommunitiesMembers)[0])
	wantMembers := []map[string]any{
		{"entityId": "A", "communities": []string{"0-0", "1-0"}},
		{"entityId": "B", "communities": []string{"0-0", "1-0"}},
		{"entityId": "C", "communities": []string{"0-0", "1-1"}},
	}
	if !reflect.DeepEqual(members, wantMembers) {
		t.Errorf("IN_COMMUNITY rows\n got  %v\n want %v", members, wantMembers)
	}
	parents := rowsParam(t, f.only(qCommunitiesParents)[0])
	wantParents := []map[string]any{{"child": "1-0", "parent": "0-0"}, {"child": "1-1", "parent": "0-0"}}
	if !reflect.DeepEqual(parents, wantParents) {
		t.Errorf("CHILD_OF rows %v, want %v", parents, wantParents)
	}
}

func TestComputeCommunitiesWithoutRelationships(t *testing.T) {
	s, f := newFakeStore(t, Config{}, "2.13.0")
	f.answer = answers(map[string][]map[string]any{
		qCountEntities: {{"entities": int64(2)}},
		qGDSProject:    {{"nodeCount": int64(2), "relationshipCount": int64(0)}},
		qReadEntityIDs: {{"id": "A"}, {"id": "B"}},
	})
	got, err := s.ComputeCommunities(t.Context(), graph.DefaultLeidenParams())
	if err != nil {
		t.Fatal(err)
	}
	want := []graph.Community{{ID: "0-0", Level: 0, CommunityID: 0, Size: 1}, {ID: "0-1", Level: 0, CommunityID: 1, Size: 1}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("communities = %+v, want one per entity: %+v", got, want)
	}
	if len(f.only(qGDSLeidenMutate)) != 0 || len(f.only(qGDSLeidenLevels)) != 0 {
		t.Error("ran Leiden on a graph without relationships (it would fail on the missing weight property)")
	}
	// No modularity to record: the empty value removes an older record.
	if meta := rowsParam(t, f.only(qWriteMeta)[0]); !reflect.DeepEqual(meta, []map[string]any{{"key": graph.CommunityModularityKey, "value": ""}}) {
		t.Errorf("meta rows %v, want the record removed", meta)
	}

	// No entities: the old hierarchy is removed and nothing else runs.
	s, f = newFakeStore(t, Config{}, "2.13.0")
	f.answer = answers(map[string][]map[string]any{qCountEntities: {{"entities": int64(0)}}})
	if got, err := s.ComputeCommunities(t.Context(), graph.DefaultLeidenParams()); err != nil || len(got) != 0 {
		t.Errorf("ComputeCommunities on an empty graph = %v, %v", got, err)
	}
	sequence(t, f, qCountEntities, qBumpGeneration, qCommunitiesDelete, qWriteMeta, qBumpGeneration)
}

// TestWriteStepsTransactions: writeSteps sends statements of BatchSize rows, in order, and
// starts a new transaction only where the next statement would take the current one past
// txWrites writes (a statement alone may exceed it).
func TestWriteStepsTransactions(t *testing.T) {
	rows := func(n int) []map[string]any {
		out := make([]map[string]any, n)
		for i := range out {
			out[i] = map[string]any{"id": fmt.Sprint(i)}
		}
		return out
	}
	members := func(levels ...int) []map[string]any {
		var ms []membership
		for e, n := range levels {
			for l := range n {
				ms = append(ms, membership{entityID: fmt.Sprint("E", e), communityID: fmt.Sprint(l, "-0")})
			}
		}
		return memberRows(ms)
	}
	for _, tc := range []struct {
		name     string
		txWrites int
		steps    []writeStep
		want     [][]string // statements per transaction
	}{
		{"all in one", 100, []writeStep{{name: qCommunitiesCreate, rows: rows(5)}, {name: qCommunitiesParents, rows: rows(2)}},
			[][]string{{qCommunitiesCreate, qCommunitiesCreate, qCommunitiesParents}}},
		{"split at the budget", 4, []writeStep{{name: qCommunitiesCreate, rows: rows(5)}, {name: qCommunitiesParents, rows: rows(2)}},
			[][]string{{qCommunitiesCreate}, {qCommunitiesCreate, qCommunitiesParents}}},
		{"a statement over the budget alone", 2, []writeStep{{name: qCommunitiesCreate, rows: rows(3)}, {name: qCommunitiesParents, rows: rows(1)}},
			[][]string{{qCommunitiesCreate}, {qCommunitiesParents}}},
		{"members count their communities", 6, []writeStep{
			{name: qCommunitiesMembers, rows: members(3, 3, 3, 1), writes: memberWrites}, {name: qCommunitiesParents, rows: rows(1)}},
			[][]string{{qCommunitiesMembers}, {qCommunitiesMembers, qCommunitiesParents}}},
		{"nothing", 10, []writeStep{{name: qCommunitiesCreate}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, f := newFakeStore(t, Config{BatchSize: 3}, "2.13.0")
			s.txWrites = tc.txWrites
			if err := s.writeSteps(t.Context(), tc.steps); err != nil {
				t.Fatal(err)
			}
			var got [][]string
			last := -1
			sent := map[string]int{}
			for _, c := range f.calls {
				if c.txn != last {
					got = append(got, nil)
					last = c.txn
				}
				got[len(got)-1] = append(got[len(got)-1], c.name)
				sent[c.name] += len(rowsParam(t, c))
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("transactions %v, want %v", got, tc.want)
			}
			for _, st := range tc.steps {
				if sent[st.name] != len(st.rows) {
					t.Errorf("%s: %d rows sent of %d", st.name, sent[st.name], len(st.rows))
				}
			}
		})
	}
}
