package storetest

import (
	"maps"
	"testing"

	"github.com/stratarag/strata/internal/graph"
)

func applyTests() []test {
	return []test{
		{"Apply/Empty", testEmpty},
		{"Apply/RoundTrip", testRoundTrip},
		{"Apply/Idempotent", testIdempotent},
		{"Apply/UpsertReplaces", testUpsertReplaces},
		{"Apply/Derived", testDerived},
		{"Apply/Meta", testMeta},
		{"Apply/UnknownCommunity", testUnknownCommunity},
		{"Apply/MissingReferences", testMissingReferences},
		{"Apply/EmbeddingDimensions", testEmbeddingDimensions},
		{"Apply/DeleteChunks", testDeleteChunks},
		{"Apply/ClearSummaries", testClearSummaries},
	}
}

// testClearSummaries: clearing removes every layer >= 1 entity with its relationships and keeps
// layer 0 whole; new summaries in the same batch are written after the clearing.
func testClearSummaries(t *testing.T, s graph.Store) {
	apply(t, s, baseBatch())
	apply(t, s, graph.Batch{ClearSummaries: true})
	want := counts(map[string]int64{
		"Document": 2, "Chunk": 4, "Entity": 3,
		"PART_OF": 4, "NEXT": 2, "HAS_ENTITY": 3, "RELATED": 2,
	})
	check(t, "Stats after ClearSummaries", stats(t, s), want)
	check(t, "EntitiesByLayer(0) after ClearSummaries", must[[]graph.Entity](t, "EntitiesByLayer")(s.EntitiesByLayer(ctx(t), 0)), stored(baseEntities()[:3]))
	for _, h := range must[[]graph.Hit](t, "VectorSearch")(s.VectorSearch(ctx(t), graph.EntityEmbedding, []float32{0, 0, 1}, 10)) {
		if h.ID == "PEOPLE" {
			t.Error("VectorSearch still finds the cleared summary")
		}
	}
	if hits := must[[]graph.Hit](t, "TextSearch")(s.TextSearch(ctx(t), graph.EntityText, "story", 10)); len(hits) != 0 {
		t.Errorf("TextSearch still finds the cleared summary: %v", hits)
	}

	group := graph.Entity{ID: "GROUP", Name: "Group", Type: "other", Description: "Alice and Bob.", Layer: 1, Embedding: []float32{0, 1, 1}}
	apply(t, s, graph.Batch{
		ClearSummaries: true,
		Entities:       []graph.Entity{group},
		SummaryLinks:   []graph.SummaryLink{{Member: "ALICE", Summary: "GROUP", Description: "member", Weight: 1}},
	})
	check(t, "EntitiesByLayer(1) after rebuilding", must[[]graph.Entity](t, "EntitiesByLayer")(s.EntitiesByLayer(ctx(t), 1)), stored([]graph.Entity{group}))
	if got := stats(t, s).Relationships["SUMMARIZED_BY"]; got != 1 {
		t.Errorf("SUMMARIZED_BY after rebuilding = %d, want 1", got)
	}
}

// testDeleteChunks: deleted chunks leave with their PART_OF, NEXT and HAS_ENTITY, out of every
// lookup and index; the document's chain closes over the gap; a chunk deleted and written in
// one batch ends up written; unknown ids are ignored; relations keep their chunk ids.
func testDeleteChunks(t *testing.T, s graph.Store) {
	apply(t, s, baseBatch())
	apply(t, s, graph.Batch{DeleteChunks: []string{"c-2", "no-such-chunk"}})
	want := counts(map[string]int64{
		"Document": 2, "Chunk": 3, "Entity": 4, "Summary": 1,
		"PART_OF": 3, "NEXT": 1, "HAS_ENTITY": 2, "RELATED": 2, "SUMMARIZED_BY": 2,
	})
	check(t, "Stats after deleting c-2", stats(t, s), want)
	check(t, "DocumentChunks(doc-1)", must[[]graph.Chunk](t, "DocumentChunks")(s.DocumentChunks(ctx(t), "doc-1")),
		pick(baseChunks(), chunkID, "c-1", "c-3"))
	if got := must[[]graph.Chunk](t, "Chunks")(s.Chunks(ctx(t), []string{"c-2"})); len(got) != 0 {
		t.Errorf("Chunks(c-2) after delete = %v", got)
	}
	for _, h := range must[[]graph.Hit](t, "VectorSearch")(s.VectorSearch(ctx(t), graph.ChunkEmbedding, []float32{0, 1, 0}, 10)) {
		if h.ID == "c-2" {
			t.Error("VectorSearch still finds the deleted chunk")
		}
	}
	if hits := must[[]graph.Hit](t, "TextSearch")(s.TextSearch(ctx(t), graph.ChunkText, "hired", 10)); len(hits) != 0 {
		t.Errorf("TextSearch still finds the deleted chunk: %v", hits)
	}
	lc := must[graph.LocalContext](t, "ExpandLocal")(s.ExpandLocal(ctx(t), []string{"ACME"}, graph.LocalOptions{TopChunks: 5}))
	if len(lc.Chunks) != 0 {
		t.Errorf("ExpandLocal reaches the deleted chunk through HAS_ENTITY: %v", lc.Chunks)
	}
	check(t, "Relations keep their chunk ids", must[[]graph.Relation](t, "Relations")(s.Relations(ctx(t), []graph.RelationKey{graph.NewRelationKey("ACME", "ALICE")})),
		pick(baseRelations(), func(r graph.Relation) string { return r.Source }, "ACME"))

	// Deleting and writing a chunk in one batch: deletions come first.
	c2 := pick(baseChunks(), chunkID, "c-2")
	apply(t, s, graph.Batch{DeleteChunks: []string{"c-2", "c-3"}, Chunks: c2})
	check(t, "DocumentChunks after delete-and-write", must[[]graph.Chunk](t, "DocumentChunks")(s.DocumentChunks(ctx(t), "doc-1")),
		pick(baseChunks(), chunkID, "c-1", "c-2"))
	if got := stats(t, s).Relationships["NEXT"]; got != 1 {
		t.Errorf("NEXT after delete-and-write = %d, want 1", got)
	}
}

// testEmpty: a new store is empty, Stats has every key, and an empty batch is accepted.
func testEmpty(t *testing.T, s graph.Store) {
	check(t, "Stats of a new store", stats(t, s), counts(nil))
	apply(t, s, graph.Batch{})
	check(t, "Stats after an empty batch", stats(t, s), counts(nil))
	if got := must[[]graph.Entity](t, "EntitiesByLayer")(s.EntitiesByLayer(ctx(t), 0)); len(got) != 0 {
		t.Errorf("EntitiesByLayer(0) of a new store = %v, want none", got)
	}
	if got := must[[]graph.Community](t, "CommunitiesByLevel")(s.CommunitiesByLevel(ctx(t), -1)); len(got) != 0 {
		t.Errorf("CommunitiesByLevel(-1) of a new store = %v, want none", got)
	}
}

// testRoundTrip: everything written comes back with every field, through every lookup.
func testRoundTrip(t *testing.T, s graph.Store) {
	b := baseBatch()
	apply(t, s, b)

	check(t, "Documents", must[[]graph.Document](t, "Documents")(s.Documents(ctx(t), []string{"doc-1", "doc-2"})), b.Documents)
	check(t, "Chunks", must[[]graph.Chunk](t, "Chunks")(s.Chunks(ctx(t), []string{"c-1", "c-2", "c-3", "c-4"})), b.Chunks)
	check(t, "Entities", must[[]graph.Entity](t, "Entities")(s.Entities(ctx(t), []string{"ACME", "ALICE", "BOB", "PEOPLE"})), stored(b.Entities))
	check(t, "Relations", must[[]graph.Relation](t, "Relations")(s.Relations(ctx(t), []graph.RelationKey{
		graph.NewRelationKey("ALICE", "ACME"), graph.NewRelationKey("ALICE", "BOB"),
	})), b.Relations)
	check(t, "DocumentChunks(doc-1)", must[[]graph.Chunk](t, "DocumentChunks")(s.DocumentChunks(ctx(t), "doc-1")), b.Chunks[:3])
	check(t, "DocumentChunks(doc-2)", must[[]graph.Chunk](t, "DocumentChunks")(s.DocumentChunks(ctx(t), "doc-2")), b.Chunks[3:])
	check(t, "EntitiesByLayer(0)", must[[]graph.Entity](t, "EntitiesByLayer")(s.EntitiesByLayer(ctx(t), 0)), stored(b.Entities[:3]))
	check(t, "EntitiesByLayer(1)", must[[]graph.Entity](t, "EntitiesByLayer")(s.EntitiesByLayer(ctx(t), 1)), stored(b.Entities[3:]))
	check(t, "Stats", stats(t, s), baseCounts())
	v, ok, err := s.Meta(ctx(t), "embedding_model")
	if err != nil || !ok || v != "test-model" {
		t.Errorf(`Meta("embedding_model") = %q, %v, %v; want "test-model", true, nil`, v, ok, err)
	}
}

// testIdempotent: applying the same batch twice leaves the store as applying it once.
func testIdempotent(t *testing.T, s graph.Store) {
	apply(t, s, baseBatch())
	once := snapshot(t, s)
	apply(t, s, baseBatch())
	check(t, "store after applying the batch twice", snapshot(t, s), once)
	check(t, "Stats after applying the batch twice", stats(t, s), baseCounts())
}

// state is everything a lookup can see of the base fixture.
type state struct {
	Stats     graph.Stats
	Documents []graph.Document
	Chunks    []graph.Chunk
	Entities  []graph.Entity
	Relations []graph.Relation
}

func snapshot(t *testing.T, s graph.Store) state {
	t.Helper()
	return state{
		Stats:     stats(t, s),
		Documents: must[[]graph.Document](t, "Documents")(s.Documents(ctx(t), []string{"doc-1", "doc-2"})),
		Chunks:    must[[]graph.Chunk](t, "Chunks")(s.Chunks(ctx(t), []string{"c-1", "c-2", "c-3", "c-4"})),
		Entities:  must[[]graph.Entity](t, "Entities")(s.Entities(ctx(t), []string{"ACME", "ALICE", "BOB", "PEOPLE"})),
		Relations: must[[]graph.Relation](t, "Relations")(s.Relations(ctx(t), []graph.RelationKey{
			{Source: "ACME", Target: "ALICE"}, {Source: "ALICE", Target: "BOB"},
		})),
	}
}

// testUpsertReplaces: a second write of an id replaces the stored properties, also with empty
// values, and adds nothing.
func testUpsertReplaces(t *testing.T, s graph.Store) {
	apply(t, s, baseBatch())

	doc := baseDocuments()[0]
	doc.Title, doc.Metadata, doc.SHA256 = "Alpha report, revised", `{"lang":"fr"}`, "ffff"
	chunk := baseChunks()[0]
	chunk.Text, chunk.Tokens, chunk.Embedding = "Alice left Paris.", 4, []float32{0, 0.6, 0.8}
	alice := baseEntities()[1]
	alice.Name, alice.Type, alice.Description, alice.Embedding = "ALICE", "engineer", "Chief engineer at Acme.", []float32{0, 1, 0}
	acme := baseEntities()[0]
	acme.Description, acme.Embedding = "", nil // replaced by empty values, not merged
	rel := baseRelations()[1]
	rel.Description, rel.Weight, rel.ChunkIDs = "Alice and Bob are friends.", 4, []string{"c-1", "c-3"}
	apply(t, s, graph.Batch{
		Documents: []graph.Document{doc},
		Chunks:    []graph.Chunk{chunk},
		Entities:  []graph.Entity{alice, acme},
		Relations: []graph.Relation{rel},
	})

	check(t, "replaced document", must[[]graph.Document](t, "Documents")(s.Documents(ctx(t), []string{"doc-1"})), []graph.Document{doc})
	check(t, "replaced chunk", must[[]graph.Chunk](t, "Chunks")(s.Chunks(ctx(t), []string{"c-1"})), []graph.Chunk{chunk})
	check(t, "replaced entities", must[[]graph.Entity](t, "Entities")(s.Entities(ctx(t), []string{"ALICE", "ACME"})), stored([]graph.Entity{alice, acme}))
	check(t, "replaced relation", must[[]graph.Relation](t, "Relations")(s.Relations(ctx(t), []graph.RelationKey{rel.Key()})), []graph.Relation{rel})
	check(t, "Stats after upserts", stats(t, s), baseCounts())

	// The indexes follow the replaced values.
	hits := must[[]graph.Hit](t, "VectorSearch")(s.VectorSearch(ctx(t), graph.EntityEmbedding, []float32{0, 1, 0}, 1))
	if len(hits) != 1 || hits[0].ID != "ALICE" {
		t.Errorf("VectorSearch for Alice's new embedding = %v, want ALICE first", hits)
	}
	hits = must[[]graph.Hit](t, "VectorSearch")(s.VectorSearch(ctx(t), graph.EntityEmbedding, []float32{0.5, 0.5, 0}, 10))
	for _, h := range hits {
		if h.ID == "ACME" {
			t.Errorf("VectorSearch found ACME after its embedding was removed: %v", hits)
		}
	}
	if hits := must[[]graph.Hit](t, "TextSearch")(s.TextSearch(ctx(t), graph.ChunkText, "met", 10)); len(hits) != 0 {
		t.Errorf(`TextSearch("met") after the only chunk saying it was replaced = %v, want none`, hits)
	}
	if hits := must[[]graph.Hit](t, "TextSearch")(s.TextSearch(ctx(t), graph.ChunkText, "left", 10)); len(hits) != 1 || hits[0].ID != "c-1" {
		t.Errorf(`TextSearch("left") = %v, want c-1`, hits)
	}
	if hits := must[[]graph.Hit](t, "TextSearch")(s.TextSearch(ctx(t), graph.EntityText, "chief", 10)); len(hits) != 1 || hits[0].ID != "ALICE" {
		t.Errorf(`TextSearch(entity_text, "chief") = %v, want ALICE`, hits)
	}
}

// testDerived: PART_OF and NEXT follow from Chunk.DocumentID and Chunk.Seq, whatever order the
// chunks arrive in and however they are split over batches. NEXT links a document's chunks in
// Seq order, also across gaps in Seq.
func testDerived(t *testing.T, s graph.Store) {
	docs := []graph.Document{{ID: "d", Title: "D", Metadata: "{}"}, {ID: "e", Title: "E", Metadata: "{}"}}
	chunk := func(id, doc string, seq int) graph.Chunk {
		return graph.Chunk{ID: id, DocumentID: doc, Seq: seq, Text: "text of " + id, Tokens: 3}
	}
	apply(t, s, graph.Batch{Documents: docs, Chunks: []graph.Chunk{chunk("d2", "d", 2), chunk("d0", "d", 0), chunk("e9", "e", 9)}})
	apply(t, s, graph.Batch{Chunks: []graph.Chunk{chunk("d3", "d", 3), chunk("d1", "d", 1), chunk("e0", "e", 0), chunk("e4", "e", 4)}})

	check(t, "Stats", stats(t, s), counts(map[string]int64{"Document": 2, "Chunk": 7, "PART_OF": 7, "NEXT": 5}))
	check(t, "DocumentChunks(d) in Seq order", must[[]graph.Chunk](t, "DocumentChunks")(s.DocumentChunks(ctx(t), "d")),
		[]graph.Chunk{chunk("d0", "d", 0), chunk("d1", "d", 1), chunk("d2", "d", 2), chunk("d3", "d", 3)})
	check(t, "DocumentChunks(e) in Seq order", must[[]graph.Chunk](t, "DocumentChunks")(s.DocumentChunks(ctx(t), "e")),
		[]graph.Chunk{chunk("e0", "e", 0), chunk("e4", "e", 4), chunk("e9", "e", 9)})

	// A chunk moved to another document leaves the first one.
	apply(t, s, graph.Batch{Chunks: []graph.Chunk{chunk("d3", "e", 10)}})
	check(t, "Stats after moving a chunk", stats(t, s), counts(map[string]int64{"Document": 2, "Chunk": 7, "PART_OF": 7, "NEXT": 5}))
	check(t, "DocumentChunks(d) after moving a chunk", must[[]graph.Chunk](t, "DocumentChunks")(s.DocumentChunks(ctx(t), "d")),
		[]graph.Chunk{chunk("d0", "d", 0), chunk("d1", "d", 1), chunk("d2", "d", 2)})
}

// testMeta: values are written, replaced, and missing keys are reported as missing.
func testMeta(t *testing.T, s graph.Store) {
	if v, ok, err := s.Meta(ctx(t), "missing"); err != nil || ok || v != "" {
		t.Errorf(`Meta("missing") = %q, %v, %v; want "", false, nil`, v, ok, err)
	}
	apply(t, s, graph.Batch{Meta: map[string]string{"a": "1", "b": "1", "c": ""}})
	apply(t, s, graph.Batch{Meta: map[string]string{"a": "2", "b": ""}})
	for _, tc := range []struct {
		key, want string
		ok        bool
	}{{"a", "2", true}, {"b", "", false}, {"c", "", false}} {
		if v, ok, err := s.Meta(ctx(t), tc.key); err != nil || ok != tc.ok || v != tc.want {
			t.Errorf("Meta(%q) = %q, %v, %v; want %q, %v, nil (an empty value removes the key)", tc.key, v, ok, err, tc.want, tc.ok)
		}
	}
	// Several keys at once (one statement where the store reads them so), asked twice or missing.
	vals, err := graph.MetaValues(ctx(t), s, "a", "b", "missing", "a")
	if want := map[string]string{"a": "2", "b": "", "missing": ""}; err != nil || !maps.Equal(vals, want) {
		t.Errorf(`MetaValues(a, b, missing, a) = %v, %v; want %v`, vals, err, want)
	}
	check(t, "Stats after meta writes", stats(t, s), counts(nil))
}

// testUnknownCommunity: reports for communities that do not exist are an error, and the failed
// batch writes nothing at all.
func testUnknownCommunity(t *testing.T, s graph.Store) {
	b := baseBatch()
	b.Communities = []graph.Community{{ID: graph.CommunityID(0, 99), Title: "Nobody", Rating: 5}}
	if err := s.Apply(ctx(t), b); err == nil {
		t.Fatal("Apply with a report for an unknown community succeeded")
	}
	check(t, "Stats after the failed batch", stats(t, s), counts(nil))
	if got := must[[]graph.Document](t, "Documents")(s.Documents(ctx(t), []string{"doc-1"})); len(got) != 0 {
		t.Errorf("the failed batch wrote documents: %v", got)
	}
	if _, ok, _ := s.Meta(ctx(t), "embedding_model"); ok {
		t.Error("the failed batch wrote meta")
	}
}

// testMissingReferences: a batch referring to a node that exists neither in the store nor in the
// batch fails as a whole; references to nodes of the same batch are fine.
func testMissingReferences(t *testing.T, s graph.Store) {
	apply(t, s, baseBatch())
	before := snapshot(t, s)
	newEntity := graph.Entity{ID: "NEW", Name: "New", Type: "thing", Description: "written only with a good batch"}
	for _, tc := range []struct {
		name string
		b    graph.Batch
	}{
		{"chunk of a missing document", graph.Batch{Chunks: []graph.Chunk{{ID: "c-9", DocumentID: "doc-9", Text: "x"}}}},
		{"mention of a missing chunk", graph.Batch{Mentions: []graph.Mention{{ChunkID: "c-9", EntityID: "ALICE"}}}},
		{"mention of a missing entity", graph.Batch{Mentions: []graph.Mention{{ChunkID: "c-1", EntityID: "NOBODY"}}}},
		{"relation to a missing entity", graph.Batch{Relations: []graph.Relation{{Source: "ALICE", Target: "NOBODY", Weight: 1}}}},
		{"summary link to a missing summary", graph.Batch{SummaryLinks: []graph.SummaryLink{{Member: "ALICE", Summary: "NOBODY", Weight: 1}}}},
		{"summary link from a missing member", graph.Batch{SummaryLinks: []graph.SummaryLink{{Member: "NOBODY", Summary: "PEOPLE", Weight: 1}}}},
	} {
		tc.b.Entities = append(tc.b.Entities, newEntity)
		if err := s.Apply(ctx(t), tc.b); err == nil {
			t.Errorf("%s: Apply succeeded", tc.name)
		}
		check(t, tc.name+": store after the failed batch", snapshot(t, s), before)
		if got := must[[]graph.Entity](t, "Entities")(s.Entities(ctx(t), []string{"NEW"})); len(got) != 0 {
			t.Errorf("%s: the failed batch wrote %v", tc.name, got)
		}
	}

	// The same kinds of references are fine when the batch brings the nodes along.
	apply(t, s, graph.Batch{
		Documents:    []graph.Document{{ID: "doc-9", Metadata: "{}"}},
		Chunks:       []graph.Chunk{{ID: "c-9", DocumentID: "doc-9", Text: "x"}},
		Entities:     []graph.Entity{newEntity, {ID: "SUM", Name: "Sum", Layer: 1}},
		Mentions:     []graph.Mention{{ChunkID: "c-9", EntityID: "NEW"}},
		Relations:    []graph.Relation{{Source: "ALICE", Target: "NEW", Weight: 1}},
		SummaryLinks: []graph.SummaryLink{{Member: "NEW", Summary: "SUM", Weight: 1}},
	})
	want := baseCounts()
	for k, v := range map[string]int64{"Document": 1, "Chunk": 1, "Entity": 2, "Summary": 1, "PART_OF": 1, "HAS_ENTITY": 1, "RELATED": 1, "SUMMARIZED_BY": 1} {
		if _, ok := want.Nodes[k]; ok {
			want.Nodes[k] += v
		} else {
			want.Relationships[k] += v
		}
	}
	check(t, "Stats after a batch with its own references", stats(t, s), want)
}

// testEmbeddingDimensions: a vector index takes the dimension of its first embeddings; a batch
// that mixes dimensions in one index, or brings another dimension than the index holds, fails as
// a whole. Each index has its own dimension.
func testEmbeddingDimensions(t *testing.T, s graph.Store) {
	apply(t, s, baseBatch()) // 3 dimensions for chunks and entities
	before := snapshot(t, s)
	doc := graph.Document{ID: "doc-9", Metadata: "{}"}
	for _, tc := range []struct {
		name string
		b    graph.Batch
	}{
		{"chunk of another dimension", graph.Batch{Documents: []graph.Document{doc},
			Chunks: []graph.Chunk{{ID: "c-9", DocumentID: "doc-9", Text: "x", Embedding: []float32{1, 0}}}}},
		{"entity of another dimension", graph.Batch{Documents: []graph.Document{doc},
			Entities: []graph.Entity{{ID: "NEW", Name: "New", Embedding: []float32{1, 0, 0, 0}}}}},
		{"mixed dimensions in one batch", graph.Batch{Documents: []graph.Document{doc}, Chunks: []graph.Chunk{
			{ID: "c-9", DocumentID: "doc-9", Text: "x", Embedding: []float32{1, 0, 0}},
			{ID: "c-10", DocumentID: "doc-9", Seq: 1, Text: "y", Embedding: []float32{1, 0, 0, 0}},
		}}},
	} {
		if err := s.Apply(ctx(t), tc.b); err == nil {
			t.Errorf("%s: Apply succeeded", tc.name)
		}
		check(t, tc.name+": store after the failed batch", snapshot(t, s), before)
		if got := must[[]graph.Document](t, "Documents")(s.Documents(ctx(t), []string{"doc-9"})); len(got) != 0 {
			t.Errorf("%s: the failed batch wrote %v", tc.name, got)
		}
	}
}
