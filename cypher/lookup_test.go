package cypher

import (
	"context"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/stratarag/strata/internal/graph"
)

// Records as the driver returns them: integers int64, floats float64, lists []any, maps
// map[string]any, datetimes time.Time, missing properties absent.

func entityRecord(id string, layer int64, emb ...any) map[string]any {
	m := map[string]any{"id": id, "name": id, "type": "thing", "description": "entity " + id,
		"layer": layer, "componentId": int64(-1), "degree": int64(0)}
	if emb != nil {
		m["embedding"] = emb
	}
	return m
}

func TestLookupsKeepAskedOrder(t *testing.T) {
	s, f := newFakeStore(t, Config{}, "")
	at := time.Date(2024, 5, 6, 7, 8, 9, 0, time.FixedZone("", 0))
	f.answer = answers(map[string][]map[string]any{
		qReadDocuments: {
			{"document": map[string]any{"id": "d1", "title": "One", "source": "a.md", "sha256": "ab", "metadata": "{}", "ingestedAt": at}},
			{"document": map[string]any{"id": "d2", "title": "Two", "metadata": "{}"}},
		},
		qReadEntities: {
			{"entity": entityRecord("B", 0)},
			{"entity": entityRecord("A", 1, 0.5, int64(1))},
		},
		qReadRelations: {
			{"relation": map[string]any{"source": "A", "target": "B", "description": "ab", "weight": 1.5, "chunkIds": []any{"c1"}}},
		},
	})
	docs, err := s.Documents(t.Context(), []string{"d2", "missing", "d1"})
	if err != nil {
		t.Fatal(err)
	}
	want := []graph.Document{
		{ID: "d2", Title: "Two", Metadata: "{}"},
		{ID: "d1", Title: "One", Source: "a.md", SHA256: "ab", Metadata: "{}", IngestedAt: at},
	}
	if !reflect.DeepEqual(docs, want) {
		t.Errorf("Documents = %+v, want %+v", docs, want)
	}
	if got := f.only(qReadDocuments)[0].params["ids"]; !reflect.DeepEqual(got, []string{"d2", "missing", "d1"}) {
		t.Errorf("ids param = %v", got)
	}

	es, err := s.Entities(t.Context(), []string{"A", "B", "A"})
	if err != nil {
		t.Fatal(err)
	}
	wantE := []graph.Entity{
		{ID: "A", Name: "A", Type: "thing", Description: "entity A", Layer: 1, Embedding: []float32{0.5, 1}, ComponentID: -1},
		{ID: "B", Name: "B", Type: "thing", Description: "entity B", ComponentID: -1},
		{ID: "A", Name: "A", Type: "thing", Description: "entity A", Layer: 1, Embedding: []float32{0.5, 1}, ComponentID: -1},
	}
	if !reflect.DeepEqual(es, wantE) {
		t.Errorf("Entities = %+v, want %+v", es, wantE)
	}
	if got := f.only(qReadEntities)[0].params["ids"]; !reflect.DeepEqual(got, []string{"A", "B"}) {
		t.Errorf("ids param = %v, want duplicates sent once", got)
	}

	rels, err := s.Relations(t.Context(), []graph.RelationKey{{Source: "B", Target: "A"}, {Source: "X", Target: "Y"}})
	if err != nil {
		t.Fatal(err)
	}
	wantR := []graph.Relation{{Source: "A", Target: "B", Description: "ab", Weight: 1.5, ChunkIDs: []string{"c1"}}}
	if !reflect.DeepEqual(rels, wantR) {
		t.Errorf("Relations = %+v, want %+v", rels, wantR)
	}
	keys := f.only(qReadRelations)[0].params["keys"]
	wantKeys := []map[string]any{{"source": "A", "target": "B"}, {"source": "X", "target": "Y"}}
	if !reflect.DeepEqual(keys, wantKeys) {
		t.Errorf("keys param = %v, want normalized %v", keys, wantKeys)
	}

	if got, err := s.Chunks(t.Context(), nil); err != nil || got != nil {
		t.Errorf("Chunks(nil) = %v, %v; want nothing and no query", got, err)
	}
	if n := len(f.only(qReadChunks)); n != 0 {
		t.Errorf("Chunks(nil) ran %d queries", n)
	}
}

func TestDecodeErrors(t *testing.T) {
	s, f := newFakeStore(t, Config{}, "")
	f.answer = answers(map[string][]map[string]any{
		qReadChunks: {{"chunk": map[string]any{"id": "c", "seq": "not a number"}}},
	})
	if _, err := s.Chunks(t.Context(), []string{"c"}); err == nil {
		t.Error("Chunks decoded a string seq without error")
	}
}

func TestCommunityMembersAndLevels(t *testing.T) {
	s, f := newFakeStore(t, Config{}, "")
	comm := map[string]any{"id": "1-0", "level": int64(1), "communityId": int64(0), "parentId": "0-0",
		"size": int64(2), "title": "T", "rating": 7.5}
	f.answer = answers(map[string][]map[string]any{
		qReadCommunityMembers: {{"entity": entityRecord("A", 0)}, {"entity": entityRecord("B", 0)}},
		qReadCommunityRelations: {{"count": int64(3), "weight": 4.5,
			"relations": []any{map[string]any{"source": "A", "target": "B", "weight": int64(1)}}}},
		qReadCommunityChildren: {{"community": comm}},
		qReadCommunitiesLevel:  {{"community": comm}},
	})
	m, err := s.CommunityMembers(t.Context(), "0-0", -1)
	if err != nil {
		t.Fatal(err)
	}
	a, c, d := f.only(qReadCommunityMembers)[0], f.only(qReadCommunityRelations)[0], f.only(qReadCommunityChildren)[0]
	if a.txn != c.txn || c.txn != d.txn || a.write {
		t.Error("the three member statements did not share one read transaction")
	}
	if len(m.Entities) != 2 || len(m.Relations) != 1 || m.Relations[0].Weight != 1 || m.RelationCount != 3 || m.RelationWeight != 4.5 ||
		len(m.Children) != 1 || m.Children[0].ParentID != "0-0" {
		t.Errorf("CommunityMembers = %+v", m)
	}
	if got := c.params["limit"]; got != int64(math.MaxInt64) {
		t.Errorf("limit param for all relations = %#v, want MaxInt64", got)
	}
	if _, err := s.CommunityMembers(t.Context(), "0-0", 5); err != nil {
		t.Fatal(err)
	}
	if got := f.only(qReadCommunityRelations)[1].params["limit"]; got != int64(5) {
		t.Errorf("limit param = %#v, want int64(5)", got)
	}
	cs, err := s.CommunitiesByLevel(t.Context(), -1)
	if err != nil {
		t.Fatal(err)
	}
	want := []graph.Community{{ID: "1-0", Level: 1, CommunityID: 0, ParentID: "0-0", Size: 2, Title: "T", Rating: 7.5}}
	if !reflect.DeepEqual(cs, want) {
		t.Errorf("CommunitiesByLevel = %+v, want %+v", cs, want)
	}
	if got := f.only(qReadCommunitiesLevel)[0].params["level"]; got != int64(-1) {
		t.Errorf("level param = %#v, want int64(-1)", got)
	}
	f.answer = nil
	if m, err := s.CommunityMembers(t.Context(), "nope", -1); err != nil || len(m.Entities)+len(m.Children)+len(m.Relations) != 0 {
		t.Errorf("CommunityMembers(unknown) = %+v, %v; want empty", m, err)
	}
}

func TestMetaAndStats(t *testing.T) {
	s, f := newFakeStore(t, Config{}, "")
	f.answer = answers(map[string][]map[string]any{
		qReadMeta: {{"value": ""}},
		qReadStats: {{
			"nodes":         map[string]any{"Document": int64(2), "Chunk": int64(4), "Entity": int64(4), "Summary": int64(1), "Community": int64(0)},
			"relationships": map[string]any{"PART_OF": int64(4), "NEXT": int64(2)},
		}},
	})
	v, ok, err := s.Meta(t.Context(), "b")
	if err != nil || !ok || v != "" {
		t.Errorf("Meta = %q, %v, %v; want an empty value that exists", v, ok, err)
	}
	st, err := s.Stats(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	want := graph.Stats{
		Nodes:         map[string]int64{"Document": 2, "Chunk": 4, "Entity": 4, "Summary": 1, "Community": 0},
		Relationships: map[string]int64{"PART_OF": 4, "NEXT": 2, "HAS_ENTITY": 0, "RELATED": 0, "SUMMARIZED_BY": 0, "IN_COMMUNITY": 0, "CHILD_OF": 0},
	}
	if !reflect.DeepEqual(st, want) {
		t.Errorf("Stats = %+v, want %+v", st, want)
	}
	f.answer = nil
	if _, ok, err := s.Meta(t.Context(), "missing"); ok || err != nil {
		t.Errorf("Meta(missing) = %v, %v; want not found", ok, err)
	}
}

// TestCanceledContext: every method fails on a canceled context before sending anything.
func TestCanceledContext(t *testing.T) {
	s, f := newFakeStore(t, Config{}, "2.13.0")
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	errs := map[string]error{}
	_, errs["Documents"] = s.Documents(ctx, []string{"a"})
	_, errs["Relations"] = s.Relations(ctx, []graph.RelationKey{{Source: "a", Target: "b"}})
	_, errs["DocumentChunks"] = s.DocumentChunks(ctx, "a")
	_, errs["EntitiesByLayer"] = s.EntitiesByLayer(ctx, 0)
	_, errs["CommunitiesByLevel"] = s.CommunitiesByLevel(ctx, 0)
	_, errs["CommunityMembers"] = s.CommunityMembers(ctx, "0-0", -1)
	_, _, errs["Meta"] = s.Meta(ctx, "a")
	_, errs["Stats"] = s.Stats(ctx)
	_, errs["VectorSearch"] = s.VectorSearch(ctx, graph.ChunkEmbedding, []float32{1}, 1)
	_, errs["TextSearch"] = s.TextSearch(ctx, graph.ChunkText, "a", 1)
	_, errs["ExpandLocal"] = s.ExpandLocal(ctx, []string{"a"}, graph.LocalOptions{TopChunks: 1})
	_, errs["ShortestPaths"] = s.ShortestPaths(ctx, []graph.PathRequest{{Source: "a", Target: "b"}}, 3)
	_, errs["ComputeComponents"] = s.ComputeComponents(ctx)
	_, errs["ComputeCommunities"] = s.ComputeCommunities(ctx, graph.DefaultLeidenParams())
	for name, err := range errs {
		if err == nil {
			t.Errorf("%s with a canceled context succeeded", name)
		}
	}
	sequence(t, f)
}
