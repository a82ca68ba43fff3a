package cypher

import (
	"errors"
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
	// Its own RELATED-only projection, named outside the entity-graph catalog, dropped after;
	// before it, the left-behind projection is dropped.
	sequence(t, f, qCountEntities, qGDSListStale, qGDSDrop, qGDSProjectRelated, qGDSWCCWrite, qWriteDegree, qGDSDrop)
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
	sequence(t, f, qCountEntities, qReadMeta, qGDSList, qGDSPropertyDrop, qGDSLeidenMutate, qGDSLeidenLevels, qGDSPropertyDrop,
		qCommunitiesDelete, qCommunitiesCreate, qCommunitiesMembers, qCommunitiesMembers, qCommunitiesParents, qWriteMeta)
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
	// One write transaction per batch of BatchSize (3) rows.
	var members []map[string]any
	txns := map[int]bool{}
	for _, c := range f.calls[len(f.calls)-6 : len(f.calls)-1] {
		if !c.write || txns[c.txn] {
			t.Errorf("%s did not run in a write transaction of its own", c.name)
		}
		txns[c.txn] = true
		if c.name == qCommunitiesMembers {
			members = append(members, rowsParam(t, c)...)
		}
	}
	wantMembers := []map[string]any{
		{"entityId": "A", "community": "0-0"}, {"entityId": "B", "community": "0-0"}, {"entityId": "C", "community": "0-0"},
		{"entityId": "A", "community": "1-0"}, {"entityId": "B", "community": "1-0"}, {"entityId": "C", "community": "1-1"},
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
	sequence(t, f, qCountEntities, qCommunitiesDelete, qWriteMeta)
}
