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

// TestResidentEntitiesAndLocalChunks: a resident store's Entities and chunk-only ExpandLocal
// (hi's global level, lca) answer what the database answers, from the copies once loaded, and
// follow a write made through another store.
func TestResidentEntitiesAndLocalChunks(t *testing.T) {
	plain, resident := residentPair(t)
	ctx := t.Context()
	mustApply(t, plain, embeddedBatch())
	ids := []string{"C", "missing", "A", "E", "A"}
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
		for _, top := range []int{0, 2, 10} {
			opt := graph.LocalOptions{TopChunks: top}
			want, err := plain.ExpandLocal(ctx, ids, opt)
			if err != nil {
				t.Fatal(err)
			}
			got, err := resident.ExpandLocal(scoped, ids, opt)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s: resident ExpandLocal(%v, top %d) = %#v, database %#v", when, ids, top, got, want)
			}
		}
	}
	same("first read")
	entities, expand := statementCalls(resident, qReadEntities), statementCalls(resident, qExpandLocal)
	same("from the copies")
	if n := statementCalls(resident, qReadEntities) - entities; n != 0 {
		t.Errorf("Entities sent read_entities %d times with the copies loaded", n)
	}
	if n := statementCalls(resident, qExpandLocal) - expand; n != 0 {
		t.Errorf("a chunk-only ExpandLocal sent expand_local %d times with the copies loaded", n)
	}
	mustApply(t, plain, graph.Batch{
		Entities: []graph.Entity{{ID: "A", Name: "A", Type: "person", Description: "renamed", Embedding: []float32{5, 5}}},
		Mentions: []graph.Mention{{ChunkID: "c2", EntityID: "C", Name: "C", Type: "thing"}, {ChunkID: "c2", EntityID: "A", Name: "A", Type: "person"}},
	})
	same("after a write")
}

// TestResidentIngestState: within a read scope a resident store, or one with snapshots, reads the
// ingest state with the generations, in no statement of its own, and reads what the database
// holds.
func TestResidentIngestState(t *testing.T) {
	_, cfg := emptyServer(t)
	plain := openTestStore(t, cfg)
	resident, snapshots := cfg, cfg
	resident.Resident = true
	snapshots.SnapshotDir = t.TempDir()
	ctx := t.Context()
	mustApply(t, plain, graph.Batch{Meta: map[string]string{graph.MetaIngestState: graph.IngestStarted, graph.MetaIngestStarted: "2026-01-02T03:04:05Z", graph.MetaIngestFailed: "2"}})
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
		if n := statementCalls(reader, qReadMetaKeys) - before; n != 0 {
			t.Errorf("%s: the ingest state cost %d read_meta_keys statements in a read scope", name, n)
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
	for _, name := range []string{qReadEntityVectors, qReadChunkVectors, qReadMentionIndex, qReadCommunityMembership, qExpandLocal, qSearchText} {
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
