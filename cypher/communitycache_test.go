package cypher

import (
	"reflect"
	"testing"

	"github.com/stratarag/strata/internal/graph"
)

// statementCalls is how many times s ran the statement name so far.
func statementCalls(s *Store, name string) int {
	for _, st := range s.StatementStats() {
		if st.Name == name {
			return st.Calls
		}
	}
	return 0
}

// TestResidentCommunities: a resident store's community lists are those the database returns,
// follow a new hierarchy and new reports written through another store, and within one read
// scope cost one generation read in all and one read per level.
func TestResidentCommunities(t *testing.T) {
	plain, resident := residentPair(t)
	ctx := t.Context()
	mustApply(t, plain, chainBatch())
	same := func(when string) {
		t.Helper()
		for level := range 3 {
			want, err := plain.CommunitiesByLevel(ctx, level)
			if err != nil {
				t.Fatal(err)
			}
			got, err := resident.CommunitiesByLevel(ctx, level)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s: resident level %d = %+v, database %+v", when, level, got, want)
			}
		}
	}
	same("no communities")
	comms, err := plain.ComputeCommunities(ctx, graph.DefaultLeidenParams())
	if err != nil || len(comms) == 0 {
		t.Fatalf("ComputeCommunities = %d communities, %v", len(comms), err)
	}
	same("after ComputeCommunities")
	mustApply(t, plain, graph.Batch{Communities: []graph.Community{{ID: comms[0].ID, Title: "Chain", Summary: "A to D", Rating: 7}}})
	same("after a report")

	scoped := graph.WithReadScope(ctx)
	metaBefore, levelBefore := statementCalls(resident, qReadGenerations), statementCalls(resident, qReadCommunitiesLevel)
	for range 3 {
		if _, err := resident.CommunitiesByLevel(scoped, 0); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := resident.DocumentLinks(scoped, []string{"missing"}, 3); err != nil {
		t.Fatal(err)
	}
	if n := statementCalls(resident, qReadGenerations) - metaBefore; n != 1 {
		t.Errorf("one read scope read the generations %d times, want 1", n)
	}
	if n := statementCalls(resident, qReadCommunitiesLevel) - levelBefore; n != 0 {
		t.Errorf("level 0, already copied, was read %d times more", n)
	}
}

// TestResidentRecords: a resident store's chunks and documents are those the database returns
// (order of the ids asked, unknown ones skipped, repeats repeated), and follow writes made
// through another store.
func TestResidentRecords(t *testing.T) {
	plain, resident := residentPair(t)
	ctx := t.Context()
	ids := []string{"c2", "missing", "c1", "c2"}
	docs := []string{"d2", "d1", "missing", "d1"}
	same := func(when string) {
		t.Helper()
		for range 2 { // the second time from the copy
			wantC, err := plain.Chunks(ctx, ids)
			if err != nil {
				t.Fatal(err)
			}
			gotC, err := resident.Chunks(ctx, ids)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(gotC, wantC) {
				t.Errorf("%s: resident chunks %+v, database %+v", when, gotC, wantC)
			}
			wantD, err := plain.Documents(ctx, docs)
			if err != nil {
				t.Fatal(err)
			}
			gotD, err := resident.Documents(ctx, docs)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(gotD, wantD) {
				t.Errorf("%s: resident documents %+v, database %+v", when, gotD, wantD)
			}
		}
	}
	mustApply(t, plain, graph.Batch{
		Documents: []graph.Document{{ID: "d1", Title: "One", Metadata: "{}"}, {ID: "d2", Title: "Two", Metadata: "{}"}},
		Chunks:    []graph.Chunk{{ID: "c1", DocumentID: "d1", Text: "one"}, {ID: "c2", DocumentID: "d2", Text: "two", Embedding: []float32{1, 0}}},
	})
	same("first read")
	mustApply(t, plain, graph.Batch{Documents: []graph.Document{{ID: "d1", Title: "One, renamed", Metadata: `{"a":1}`}}})
	same("after a document changed")
	mustApply(t, plain, graph.Batch{Chunks: []graph.Chunk{{ID: "c2", DocumentID: "d1", Seq: 1, Text: "two"}}})
	same("after a chunk moved")
	mustApply(t, plain, graph.Batch{DeleteDocuments: []string{"d2"}})
	same("after a deleted document")
	if n := statementCalls(resident, qReadChunks); n == 0 {
		t.Error("the resident store never read chunks")
	}
}

// TestResidentCommunityEntities: a resident store's member entities of communities are those the
// database returns, from its membership copy and entity records, and follow what changes them
// through another store: new communities, an entity's description, new components (componentId
// and degree, which do not move the entity graph generation), and a removed entity.
func TestResidentCommunityEntities(t *testing.T) {
	plain, resident := residentPair(t)
	ctx := t.Context()
	var ids []string
	communities := func() {
		t.Helper()
		comms, err := plain.ComputeCommunities(ctx, graph.DefaultLeidenParams())
		if err != nil || len(comms) == 0 {
			t.Fatalf("ComputeCommunities = %d communities, %v", len(comms), err)
		}
		ids = ids[:0]
		for _, c := range comms {
			ids = append(ids, c.ID)
		}
	}
	same := func(when string) {
		t.Helper()
		for range 2 { // the second time from the copies
			want, err := plain.CommunityEntities(ctx, append(ids, "missing"))
			if err != nil {
				t.Fatal(err)
			}
			got, err := resident.CommunityEntities(graph.WithReadScope(ctx), append(ids, "missing"))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: resident %+v, database %+v", when, got, want)
			}
		}
	}
	mustApply(t, plain, chainBatch())
	if _, err := plain.ComputeComponents(ctx); err != nil {
		t.Fatal(err)
	}
	communities()
	same("after communities")
	mustApply(t, plain, graph.Batch{Entities: []graph.Entity{{ID: "A", Name: "A", Type: "thing", Description: "changed"}}})
	same("after a new description")
	mustApply(t, plain, graph.Batch{Relations: []graph.Relation{{Source: "D", Target: "E", Description: "DE", Weight: 1}}})
	same("after a new relation") // the records copied now have the old components
	if _, err := plain.ComputeComponents(ctx); err != nil {
		t.Fatal(err)
	}
	same("after new components")
	mustApply(t, plain, graph.Batch{DeleteEntities: []string{"B"}})
	same("after a removed entity")
	communities()
	same("after new communities")
	if n := statementCalls(resident, qReadCommunityEntities); n != 0 {
		t.Errorf("the resident store read community entities %d times from the database, want 0", n)
	}
}
