package cypher

import (
	"reflect"
	"testing"
	"time"

	"github.com/stratarag/strata/internal/graph"
)

// embeddedBatch is a small corpus with both vector indexes: two documents, four chunks, five
// entities (one without an embedding) and the mentions between them.
func embeddedBatch() graph.Batch {
	b := graph.Batch{
		Documents: []graph.Document{{ID: "d1", Title: "One", Metadata: "{}"}, {ID: "d2", Title: "Two", Metadata: "{}"}},
		Chunks: []graph.Chunk{
			{ID: "c1", DocumentID: "d1", Seq: 0, Text: "one", Embedding: []float32{1, 0}},
			{ID: "c2", DocumentID: "d1", Seq: 1, Text: "two", Embedding: []float32{0, 1}},
			{ID: "c3", DocumentID: "d2", Seq: 0, Text: "three", Embedding: []float32{1, 1}},
			{ID: "c4", DocumentID: "d2", Seq: 1, Text: "four", Embedding: []float32{1, 2}},
		},
	}
	for i, id := range []string{"A", "B", "C", "D"} {
		b.Entities = append(b.Entities, graph.Entity{ID: id, Name: id, Type: "thing", Description: "about " + id,
			Embedding: []float32{float32(i + 1), 1}})
	}
	b.Entities = append(b.Entities, graph.Entity{ID: "E", Name: "E", Type: "thing"})
	for _, m := range [][2]string{{"c1", "A"}, {"c1", "B"}, {"c2", "B"}, {"c3", "A"}, {"c3", "B"}, {"c3", "C"}, {"c4", "C"}, {"c4", "E"}} {
		b.Mentions = append(b.Mentions, graph.Mention{ChunkID: m[0], EntityID: m[1], Name: m[1], Type: "thing"})
	}
	return b
}

// TestResidentEntitiesAndLocal: a resident store's Entities, ExpandLocal, Ancestors and Relations
// answer what the database answers (relations and communities tied in weight and rating, which only the
// ids order), from the copies once loaded, and follow a write made through another store.
func TestResidentEntitiesAndLocal(t *testing.T) {
	plain, resident := residentPair(t)
	ctx := t.Context()
	b := embeddedBatch()
	for _, r := range []struct {
		s, t string
		w    float64
	}{{"A", "B", 2}, {"A", "C", 1}, {"B", "C", 1}, {"B", "D", 1}, {"C", "D", 2}, {"C", "E", 1}, {"D", "E", 1}, {"A", "A", 1}} {
		b.Relations = append(b.Relations, graph.Relation{Source: r.s, Target: r.t, Description: r.s + " to " + r.t, Weight: r.w, ChunkIDs: []string{"c3", "c1"}})
	}
	b.Entities = append(b.Entities, graph.Entity{ID: "S1", Name: "S1", Type: "summary", Description: "A, B and C", Layer: 1, Embedding: []float32{1, 1}},
		graph.Entity{ID: "S2", Name: "S2", Type: "summary", Description: "all", Layer: 2, Embedding: []float32{2, 1}})
	for _, l := range []struct {
		m, s string
		w    float64
	}{{"A", "S1", 1}, {"B", "S1", 0.5}, {"C", "S1", 0.5}, {"S1", "S2", 1}, {"D", "S2", 1}} {
		b.SummaryLinks = append(b.SummaryLinks, graph.SummaryLink{Member: l.m, Summary: l.s, Description: l.m + " in " + l.s, Weight: l.w})
	}
	b.Relations = append(b.Relations, graph.Relation{Source: "S1", Target: "S2", Description: "S1 and S2", Weight: 1})
	mustApply(t, plain, b)
	if _, err := plain.ComputeCommunities(ctx, graph.DefaultLeidenParams()); err != nil {
		t.Fatal(err)
	}
	ids := []string{"C", "missing", "A", "E", "A"}
	keys := []graph.RelationKey{{Source: "C", Target: "B"}, {Source: "A", Target: "E"}, {Source: "A", Target: "B"}, {Source: "B", Target: "C"}, {Source: "A", Target: "A"}}
	opts := []graph.LocalOptions{
		{},
		{TopChunks: 2},
		{TopChunks: 10},
		{TopChunks: 3, TopCommunities: 10, TopInsideRels: 10, TopOutsideRels: 10},
		{TopCommunities: 2, DistinctCommunities: true, TopInsideRels: 1, TopOutsideRels: 2},
		{TopCommunities: 10, DistinctCommunities: true},
	}
	same := func(when string) {
		t.Helper()
		scoped := graph.WithReadScope(ctx)
		want, err := plain.Entities(ctx, ids)
		if err != nil {
			t.Fatal(err)
		}
		got, err := resident.Entities(scoped, ids)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: resident entities %+v, database %+v", when, got, want)
		}
		for _, seeds := range [][]string{ids, {"B", "D"}, {"missing"}} {
			for _, opt := range opts {
				want, err := plain.ExpandLocal(ctx, seeds, opt)
				if err != nil {
					t.Fatal(err)
				}
				got, err := resident.ExpandLocal(scoped, seeds, opt)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s: resident ExpandLocal(%v, %+v) = %#v, database %#v", when, seeds, opt, got, want)
				}
			}
		}
		for _, from := range [][]string{ids, {"D"}, {"S1", "missing"}, {"missing"}} {
			want, err := plain.Ancestors(ctx, from)
			if err != nil {
				t.Fatal(err)
			}
			got, err := resident.Ancestors(scoped, from)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s: resident Ancestors(%v) = %#v, database %#v", when, from, got, want)
			}
		}
		wantRels, err := plain.Relations(ctx, keys)
		if err != nil {
			t.Fatal(err)
		}
		gotRels, err := resident.Relations(scoped, keys)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(gotRels, wantRels) {
			t.Errorf("%s: resident Relations = %+v, database %+v", when, gotRels, wantRels)
		}
	}
	same("first read")
	calls := func() map[string]int {
		return map[string]int{qReadEntities: statementCalls(resident, qReadEntities), qExpandLocal: statementCalls(resident, qExpandLocal),
			qReadRelations: statementCalls(resident, qReadRelations), qReadEveryRelation: statementCalls(resident, qReadEveryRelation),
			qReadAncestors: statementCalls(resident, qReadAncestors)}
	}
	before := calls()
	same("from the copies")
	if after := calls(); !reflect.DeepEqual(after, before) {
		t.Errorf("with the copies loaded the resident store sent statements: %v before, %v after", before, after)
	}
	if before[qExpandLocal]+before[qReadRelations]+before[qReadAncestors] != 0 {
		t.Errorf("the resident store sent expand_local, read_relations or read_ancestors: %v", before)
	}
	comms, err := plain.CommunitiesByLevel(ctx, 0)
	if err != nil || len(comms) == 0 {
		t.Fatalf("CommunitiesByLevel(0) = %d communities, %v", len(comms), err)
	}
	mustApply(t, plain, graph.Batch{
		Entities:    []graph.Entity{{ID: "A", Name: "A", Type: "person", Description: "renamed", Embedding: []float32{5, 5}}},
		Relations:   []graph.Relation{{Source: "A", Target: "E", Description: "new", Weight: 3, ChunkIDs: []string{"c4"}}},
		Mentions:    []graph.Mention{{ChunkID: "c2", EntityID: "C", Name: "C", Type: "thing"}, {ChunkID: "c2", EntityID: "A", Name: "A", Type: "person"}},
		Communities: []graph.Community{{ID: comms[0].ID, Title: "Rated", Summary: "now first", Rating: 9}},
	})
	same("after a write")
	if n := statementCalls(resident, qReadEveryRelation) - before[qReadEveryRelation]; n != 1 {
		t.Errorf("the write made the relations copy load %d times, want 1", n)
	}
}

// TestResidentIngestState: within a read scope a resident store, or one with snapshots, reads the
// ingest state and the embedding model's record with the generations, in no statement of their
// own, and reads what the database holds.
func TestResidentIngestState(t *testing.T) {
	_, cfg := emptyServer(t)
	plain := openTestStore(t, cfg)
	resident, snapshots := cfg, cfg
	resident.Resident = true
	snapshots.SnapshotDir = t.TempDir()
	ctx := t.Context()
	mustApply(t, plain, graph.Batch{Meta: map[string]string{graph.MetaIngestState: graph.IngestStarted, graph.MetaIngestStarted: "2026-01-02T03:04:05Z", graph.MetaIngestFailed: "2",
		graph.MetaEmbeddingModel: "e5-small", graph.MetaEmbeddingDims: "384"}})
	want, err := graph.ReadIngestState(ctx, plain)
	if err != nil {
		t.Fatal(err)
	}
	for name, reader := range map[string]*Store{"resident": openTestStore(t, resident), "with snapshots": openTestStore(t, snapshots)} {
		scoped := graph.WithReadScope(ctx)
		if _, err := reader.DocumentLinks(scoped, []string{"missing"}, 3); err != nil {
			t.Fatal(err)
		}
		before := statementCalls(reader, qReadMetaKeys)
		got, err := graph.ReadIngestState(scoped, reader)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: ingest state %+v, database %+v", name, got, want)
		}
		if !got.Unfinished || got.FailedDocuments != 2 {
			t.Errorf("%s: ingest state %+v: want an unfinished run with 2 failed documents", name, got)
		}
		model, err := graph.MetaValues(scoped, reader, graph.MetaEmbeddingModel, graph.MetaEmbeddingDims)
		if err != nil {
			t.Fatal(err)
		}
		if want := map[string]string{graph.MetaEmbeddingModel: "e5-small", graph.MetaEmbeddingDims: "384"}; !reflect.DeepEqual(model, want) {
			t.Errorf("%s: embedding model record %v, want %v", name, model, want)
		}
		if n := statementCalls(reader, qReadMetaKeys) - before; n != 0 {
			t.Errorf("%s: the ingest state and the model's record cost %d read_meta_keys statements in a read scope", name, n)
		}
	}
}

// TestStartWarming: a warming resident store loads its copies without a query, says so with
// Warm, reloads them after a write moves their generations, and stops at Close.
func TestStartWarming(t *testing.T) {
	plain, resident := residentPair(t)
	mustApply(t, plain, embeddedBatch())
	if resident.Warm() {
		t.Error("Warm before StartWarming")
	}
	waitWarm := func(when string, done func() bool) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for !(resident.Warm() && done()) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: not warm after 30 s", when)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	entityGen := func() string {
		v := resident.vectors[graph.EntityEmbedding]
		if v == nil {
			return ""
		}
		v.mu.Lock()
		defer v.mu.Unlock()
		return v.gen
	}
	resident.StartWarming()
	resident.StartWarming() // a second call does nothing
	waitWarm("at start", func() bool { return entityGen() != "" })
	first := entityGen()
	for _, name := range []string{qReadEntityVectors, qReadChunkVectors, qReadMentionIndex, qReadCommunityMembership, qReadCommunitiesLevel, qReadEveryRelation, qSearchText} {
		if statementCalls(resident, name) == 0 {
			t.Errorf("warming sent no %s", name)
		}
	}
	// The planning sends each search once; the exercise then runs both searches exerciseRounds
	// times with the store's words.
	if n := statementCalls(resident, qSearchText); n < 2+2*exerciseRounds {
		t.Errorf("warming sent search_text %d times, want at least %d", n, 2+2*exerciseRounds)
	}
	before := statementCalls(resident, qReadEntities)
	if got, err := resident.Entities(t.Context(), []string{"A"}); err != nil || len(got) != 1 || got[0].Description != "about A" {
		t.Errorf("Entities(A) after warming = %+v, %v", got, err)
	}
	if n := statementCalls(resident, qReadEntities) - before; n != 0 {
		t.Errorf("Entities after warming sent read_entities %d times", n)
	}
	mustApply(t, plain, graph.Batch{Entities: []graph.Entity{{ID: "F", Name: "F", Type: "thing", Embedding: []float32{1, 3}}}})
	waitWarm("after a write", func() bool { return entityGen() != first })
	if err := resident.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-resident.warm.done:
	default:
		t.Error("Close left the warming running")
	}
}

// TestWarmingProjectsALostGraph: a warming store whose server has no projection of the current
// entity graph (as after a restart, which empties the GDS catalog) makes it again, so that
// served paths come from GDS and not from the Cypher statements; dropped again while serving,
// it is made again.
func TestWarmingProjectsALostGraph(t *testing.T) {
	plain, resident := residentPair(t)
	ctx := t.Context()
	b := embeddedBatch()
	b.Relations = []graph.Relation{{Source: "A", Target: "B", Description: "A knows B", Weight: 1}}
	mustApply(t, plain, b)
	projected := func() (string, bool) {
		t.Helper()
		st, err := plain.catalog(ctx)
		if err != nil {
			t.Fatal(err)
		}
		_, ok := st.graphs[st.current]
		return st.current, ok
	}
	if _, ok := projected(); ok {
		t.Fatal("a projection before any ingest or warming")
	}
	waitProjected := func(when string) string {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for {
			if name, ok := projected(); ok && resident.Warm() {
				return name
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: no projection of the current graph after 30 s", when)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	resident.StartWarming()
	name := waitProjected("at start")
	plain.drop(ctx, name)
	if _, ok := projected(); ok {
		t.Fatal("the projection survived its drop")
	}
	waitProjected("after the drop")
	paths, err := resident.ShortestPaths(ctx, []graph.PathRequest{{Source: "A", Target: "B"}}, 2)
	if err != nil || len(paths) != 1 || len(paths[0].Steps) != 1 {
		t.Errorf("paths A-B = %+v, %v", paths, err)
	}
}
