package storetest

import (
	"fmt"
	"math"
	"testing"

	"github.com/stratarag/strata/internal/graph"
)

func vectorTests() []test {
	return []test{
		{"VectorSearch/Ranking", testVectorRanking},
		{"VectorSearch/Indexes", testVectorIndexes},
		{"VectorSearch/DimensionMismatch", testVectorDimension},
	}
}

func textTests() []test {
	return []test{
		{"TextSearch/BM25", testTextBM25},
		{"TextSearch/Entities", testTextEntities},
		{"TextSearch/NoSyntax", testTextNoSyntax},
		{"TextSearch/Titles", testTextTitles},
	}
}

// vectorChunks are chunks whose cosine similarity to (1, 0, 0) is known: 1, 0.8, 0, -1, and one
// without an embedding.
func vectorChunks() []graph.Chunk {
	return []graph.Chunk{
		{ID: "v-same", DocumentID: "d", Seq: 0, Text: "same", Embedding: []float32{3, 0, 0}},
		{ID: "v-near", DocumentID: "d", Seq: 1, Text: "near", Embedding: []float32{0.8, 0.6, 0}},
		{ID: "v-orth", DocumentID: "d", Seq: 2, Text: "orthogonal", Embedding: []float32{0, 0, 2}},
		{ID: "v-opp", DocumentID: "d", Seq: 3, Text: "opposite", Embedding: []float32{-1, 0, 0}},
		{ID: "v-none", DocumentID: "d", Seq: 4, Text: "no embedding"},
	}
}

// testVectorRanking: hits are ranked by cosine similarity, scored (1+cos)/2, capped at k, and
// nodes without an embedding are never returned.
func testVectorRanking(t *testing.T, s graph.Store) {
	apply(t, s, graph.Batch{Documents: []graph.Document{{ID: "d", Metadata: "{}"}}, Chunks: vectorChunks()})
	all := []graph.Hit{{ID: "v-same", Score: 1}, {ID: "v-near", Score: 0.9}, {ID: "v-orth", Score: 0.5}, {ID: "v-opp", Score: 0}}
	for _, tc := range []struct {
		name string
		vec  []float32
		k    int
		want []graph.Hit
	}{
		{"k=1", []float32{1, 0, 0}, 1, all[:1]},
		{"k=3 unnormalized query", []float32{5, 0, 0}, 3, all[:3]},
		{"k larger than the index", []float32{1, 0, 0}, 10, all},
		{"opposite query", []float32{-2, 0, 0}, 1, []graph.Hit{{ID: "v-opp", Score: 1}}},
	} {
		got := must[[]graph.Hit](t, "VectorSearch")(s.VectorSearch(ctx(t), graph.ChunkEmbedding, tc.vec, tc.k))
		checkHits(t, "VectorSearch "+tc.name, got, tc.want)
	}
}

// checkHits compares ids exactly and scores to 1e-5 (vector indexes may compute in float32).
func checkHits(t *testing.T, what string, got, want []graph.Hit) {
	t.Helper()
	ok := len(got) == len(want)
	for i := 0; ok && i < len(got); i++ {
		ok = got[i].ID == want[i].ID && math.Abs(got[i].Score-want[i].Score) <= 1e-5
	}
	if !ok {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

// testVectorIndexes: each index searches its own kind of node.
func testVectorIndexes(t *testing.T, s graph.Store) {
	apply(t, s, baseBatch())
	got := must[[]graph.Hit](t, "VectorSearch")(s.VectorSearch(ctx(t), graph.EntityEmbedding, []float32{1, 0, 0}, 10))
	// ALICE (1,0,0) cos 1; ACME (.5,.5,0) cos .7071; PEOPLE (0,0,1) cos 0; BOB has no embedding.
	checkHits(t, "VectorSearch(entity_embedding)", got, []graph.Hit{
		{ID: "ALICE", Score: 1}, {ID: "ACME", Score: (1 + math.Sqrt2/2) / 2}, {ID: "PEOPLE", Score: 0.5},
	})
	got = must[[]graph.Hit](t, "VectorSearch")(s.VectorSearch(ctx(t), graph.ChunkEmbedding, []float32{0, 1, 0}, 1))
	checkHits(t, "VectorSearch(chunk_embedding)", got, []graph.Hit{{ID: "c-2", Score: 1}})
}

// testVectorDimension: a query vector of another dimension than the stored ones is an error.
func testVectorDimension(t *testing.T, s graph.Store) {
	apply(t, s, graph.Batch{Documents: []graph.Document{{ID: "d", Metadata: "{}"}}, Chunks: vectorChunks()})
	for _, vec := range [][]float32{{1, 0}, {1, 0, 0, 0}} {
		if hits, err := s.VectorSearch(ctx(t), graph.ChunkEmbedding, vec, 3); err == nil {
			t.Errorf("VectorSearch with a %d-dimensional vector over 3-dimensional embeddings = %v, want an error", len(vec), hits)
		}
	}
}

// textChunks: "river" is in three of eight chunks, "zebra" in one; BM25 weighs the rare word so
// much more that the zebra chunk wins even against a chunk repeating "river".
func textChunks() []graph.Chunk {
	texts := []string{
		"The river river river flows past the old mill by the river.",
		"A zebra stood alone on the plain.",
		"Boats go up the river in summer.",
		"The river freezes in winter.",
		"Fishermen wait at dawn.",
		"Nothing here mentions water at all.",
		"The market opens on Monday.",
		"Snow fell on the hills.",
	}
	var cs []graph.Chunk
	for i, text := range texts {
		cs = append(cs, graph.Chunk{ID: fmt.Sprintf("t-%d", i+1), DocumentID: "d", Seq: i, Text: text, Tokens: 10})
	}
	return cs
}

// testTextBM25: the chunk with the rare word ranks first, scores descend, k caps the result, and
// chunks matching no word are not returned.
func testTextBM25(t *testing.T, s graph.Store) {
	apply(t, s, graph.Batch{Documents: []graph.Document{{ID: "d", Metadata: "{}"}}, Chunks: textChunks()})
	hits := must[[]graph.Hit](t, "TextSearch")(s.TextSearch(ctx(t), graph.ChunkText, "river zebra", 10))
	if len(hits) != 4 {
		t.Fatalf(`TextSearch("river zebra") = %v, want the 4 chunks containing a word`, hits)
	}
	if hits[0].ID != "t-2" {
		t.Errorf(`TextSearch("river zebra") ranks %s first, want t-2 (the rare word): %v`, hits[0].ID, hits)
	}
	for i, h := range hits {
		if h.ID > "t-4" {
			t.Errorf("TextSearch returned %s, which holds neither word: %v", h.ID, hits)
		}
		if h.Score <= 0 {
			t.Errorf("hit %s has score %v, want > 0", h.ID, h.Score)
		}
		if i > 0 && h.Score > hits[i-1].Score {
			t.Errorf("hits not ordered by score: %v", hits)
		}
	}
	if hits[1].ID != "t-1" {
		t.Errorf(`TextSearch("river zebra") ranks %s second, want t-1 (repeats the common word): %v`, hits[1].ID, hits)
	}
	if hits := must[[]graph.Hit](t, "TextSearch")(s.TextSearch(ctx(t), graph.ChunkText, "River", 2)); len(hits) != 2 || hits[0].ID != "t-1" {
		t.Errorf(`TextSearch("River", k=2) = %v, want 2 hits, t-1 first`, hits)
	}
	if hits := must[[]graph.Hit](t, "TextSearch")(s.TextSearch(ctx(t), graph.ChunkText, "giraffe", 10)); len(hits) != 0 {
		t.Errorf(`TextSearch("giraffe") = %v, want none`, hits)
	}
}

// testTextEntities: entity_text covers both the name and the description.
func testTextEntities(t *testing.T, s graph.Store) {
	apply(t, s, graph.Batch{Entities: []graph.Entity{
		{ID: "EBENEZER SCROOGE", Name: "Ebenezer Scrooge", Type: "person", Description: "A miser who hates Christmas."},
		{ID: "BOB CRATCHIT", Name: "Bob Cratchit", Type: "person", Description: "The clerk of Scrooge."},
		{ID: "LONDON", Name: "London", Type: "location", Description: "The city where the story happens."},
	}})
	for _, tc := range []struct{ query, want string }{
		{"miser", "EBENEZER SCROOGE"},
		{"cratchit", "BOB CRATCHIT"},
		{"city", "LONDON"},
	} {
		hits := must[[]graph.Hit](t, "TextSearch")(s.TextSearch(ctx(t), graph.EntityText, tc.query, 10))
		if len(hits) != 1 || hits[0].ID != tc.want {
			t.Errorf("TextSearch(entity_text, %q) = %v, want only %s", tc.query, hits, tc.want)
		}
	}
	hits := must[[]graph.Hit](t, "TextSearch")(s.TextSearch(ctx(t), graph.EntityText, "scrooge", 10))
	if len(hits) != 2 {
		t.Errorf(`TextSearch(entity_text, "scrooge") = %v, want both Scrooge (name) and Cratchit (description)`, hits)
	}
}

// testTextNoSyntax: queries are plain words; whatever query syntax they resemble must neither
// fail nor change what matches.
func testTextNoSyntax(t *testing.T, s graph.Store) {
	apply(t, s, graph.Batch{Documents: []graph.Document{{ID: "d", Metadata: "{}"}}, Chunks: textChunks()})
	for _, tc := range []struct {
		query     string
		wantFirst string // "" when any result (or none) is fine
	}{
		{`AND "zebra`, "t-2"},
		{`zebra AND`, "t-2"},
		{`NOT zebra`, "t-2"},
		{`zebra*`, "t-2"},
		{`+zebra -river`, ""},
		{`title:zebra`, "t-2"},
		{`(zebra`, "t-2"},
		{`zebra)`, "t-2"},
		{`NEAR(zebra plain)`, "t-2"},
		{`{zebra}`, "t-2"},
		{`zebra^2`, "t-2"},
		{`"`, ""},
		{`'`, ""},
		{`\`, ""},
		{`*`, ""},
		{`:`, ""},
		{`AND`, ""},
		{`OR OR`, ""},
		{`~`, ""},
		{`zebra~`, "t-2"},
		{`[a TO z]`, ""},
		{`/re.*/`, ""},
		{``, ""},
		{`   `, ""},
		{`¿dónde está el río?`, ""},
	} {
		hits, err := s.TextSearch(ctx(t), graph.ChunkText, tc.query, 10)
		if err != nil {
			t.Errorf("TextSearch(%q): %v", tc.query, err)
			continue
		}
		if tc.wantFirst != "" && (len(hits) == 0 || hits[0].ID != tc.wantFirst) {
			t.Errorf("TextSearch(%q) = %v, want %s first", tc.query, hits, tc.wantFirst)
		}
	}
}

// testTextTitles: chunk_text covers the chunk's document title as well as its text, and follows
// the title when the document is renamed, in the batch that adds the chunks or a later one.
func testTextTitles(t *testing.T, s graph.Store) {
	docs := []graph.Document{{ID: "d1", Title: "Zebra migration", Metadata: "{}"}, {ID: "d2", Title: "Markets", Metadata: "{}"}}
	chunks := []graph.Chunk{
		{ID: "c1", DocumentID: "d1", Seq: 0, Text: "Herds cross the river each year.", Tokens: 7},
		{ID: "c2", DocumentID: "d2", Seq: 0, Text: "Stalls open early on the square.", Tokens: 7},
	}
	apply(t, s, graph.Batch{Documents: docs, Chunks: chunks})
	search := func(q string) []string {
		t.Helper()
		var ids []string
		for _, h := range must[[]graph.Hit](t, "TextSearch")(s.TextSearch(ctx(t), graph.ChunkText, q, 10)) {
			ids = append(ids, h.ID)
		}
		return ids
	}
	if got := search("zebra"); len(got) != 1 || got[0] != "c1" {
		t.Errorf(`TextSearch("zebra") = %v, want [c1] (the word is only in its document's title)`, got)
	}
	if got := search("herds"); len(got) != 1 || got[0] != "c1" {
		t.Errorf(`TextSearch("herds") = %v, want [c1] (text still indexed)`, got)
	}
	docs[0].Title = "Wildebeest crossing"
	apply(t, s, graph.Batch{Documents: docs[:1]})
	if got := search("zebra"); len(got) != 0 {
		t.Errorf(`after renaming d1, TextSearch("zebra") = %v, want none`, got)
	}
	if got := search("wildebeest"); len(got) != 1 || got[0] != "c1" {
		t.Errorf(`after renaming d1, TextSearch("wildebeest") = %v, want [c1]`, got)
	}
}
