package storetest

import (
	"reflect"
	"testing"

	"github.com/stratarag/strata/internal/graph"
)

func localTests() []test {
	return []test{
		{"ExpandLocal/ChunksAndRelations", testLocalChunksRelations},
		{"ExpandLocal/Caps", testLocalCaps},
		{"DocumentLinks", testDocumentLinks},
	}
}

// localBatch is a neighbourhood for the seeds A and B:
//
//	k-1 mentions A, B     k-2 mentions A     k-3 mentions C     k-4 mentions B     k-5 mentions A, B, C
//	A-B 2 (inside)   A-C 5, A-E 5, B-D 1 (outside)   C-D 9 (neither)
//
// Some chunks and entities have embeddings, one of them of length 0 (which vector indexes leave
// out), and ExpandLocal returns each as stored.
func localBatch() graph.Batch {
	b := graph.Batch{Documents: []graph.Document{{ID: "d", Title: "D", Metadata: "{}"}}}
	chunkVecs := map[string][]float32{"k-1": {1, 0, 0}, "k-2": {0, 0, 0}, "k-3": {0, 1, 0}}
	for i, id := range []string{"k-1", "k-2", "k-3", "k-4", "k-5"} {
		b.Chunks = append(b.Chunks, graph.Chunk{ID: id, DocumentID: "d", Seq: i, Text: "chunk " + id, Tokens: 2, Embedding: chunkVecs[id]})
	}
	entityVecs := map[string][]float32{"A": {0.5, 0.25}, "B": {0, 0}, "C": {1, 0}}
	for _, id := range []string{"A", "B", "C", "D", "E"} {
		b.Entities = append(b.Entities, graph.Entity{ID: id, Name: id, Type: "thing", Description: "entity " + id, Embedding: entityVecs[id]})
	}
	for _, m := range [][2]string{{"k-1", "A"}, {"k-1", "B"}, {"k-2", "A"}, {"k-3", "C"}, {"k-4", "B"}, {"k-5", "A"}, {"k-5", "B"}, {"k-5", "C"}} {
		b.Mentions = append(b.Mentions, graph.Mention{ChunkID: m[0], EntityID: m[1]})
	}
	b.Relations = localRelations()
	return b
}

func localRelations() []graph.Relation {
	rel := func(a, b string, w float64) graph.Relation {
		return graph.Relation{Source: a, Target: b, Description: a + " and " + b, Weight: w, ChunkIDs: []string{"k-1"}}
	}
	return []graph.Relation{rel("A", "B", 2), rel("A", "C", 5), rel("A", "E", 5), rel("B", "D", 1), rel("C", "D", 9)}
}

// testLocalChunksRelations: seeds in asked order (missing ones skipped); chunks ranked by the
// number of seeds they mention, then id; inside and outside relations ranked by weight, then key.
func testLocalChunksRelations(t *testing.T, s graph.Store) {
	b := localBatch()
	apply(t, s, b)
	lc, err := s.ExpandLocal(ctx(t), []string{"B", "MISSING", "A"}, graph.LocalOptions{
		TopChunks: 10, TopCommunities: 10, TopInsideRels: 10, TopOutsideRels: 10,
	})
	if err != nil {
		t.Fatalf("ExpandLocal: %v", err)
	}
	check(t, "Entities", lc.Entities, stored(pick(b.Entities, entityID, "B", "A")))
	chunks := map[string]graph.Chunk{}
	for _, c := range b.Chunks {
		chunks[c.ID] = c
	}
	check(t, "Chunks", lc.Chunks, []graph.ScoredChunk{
		{Chunk: chunks["k-1"], Score: 2}, {Chunk: chunks["k-5"], Score: 2},
		{Chunk: chunks["k-2"], Score: 1}, {Chunk: chunks["k-4"], Score: 1},
	})
	if len(lc.Communities) != 0 {
		t.Errorf("Communities before ComputeCommunities = %v, want none", lc.Communities)
	}
	rels := localRelations()
	check(t, "InsideRelations", lc.InsideRelations, []graph.Relation{rels[0]})
	check(t, "OutsideRelations", lc.OutsideRelations, []graph.Relation{rels[1], rels[2], rels[3]})
}

// testLocalCaps: every kind is capped by its option, and zero means none of it.
func testLocalCaps(t *testing.T, s graph.Store) {
	b := localBatch()
	apply(t, s, b)
	rels := localRelations()
	for _, tc := range []struct {
		name    string
		opt     graph.LocalOptions
		chunks  []string
		inside  []graph.Relation
		outside []graph.Relation
	}{
		{"zero", graph.LocalOptions{}, nil, nil, nil},
		{"one each", graph.LocalOptions{TopChunks: 1, TopInsideRels: 1, TopOutsideRels: 1}, []string{"k-1"}, rels[:1], rels[1:2]},
		{"some", graph.LocalOptions{TopChunks: 3, TopOutsideRels: 2}, []string{"k-1", "k-5", "k-2"}, nil, rels[1:3]},
	} {
		lc, err := s.ExpandLocal(ctx(t), []string{"A", "B"}, tc.opt)
		if err != nil {
			t.Fatalf("ExpandLocal %s: %v", tc.name, err)
		}
		check(t, tc.name+": Entities", lc.Entities, stored(pick(b.Entities, entityID, "A", "B")))
		var ids []string
		for _, c := range lc.Chunks {
			ids = append(ids, c.ID)
		}
		check(t, tc.name+": Chunks", ids, tc.chunks)
		check(t, tc.name+": InsideRelations", lc.InsideRelations, tc.inside)
		check(t, tc.name+": OutsideRelations", lc.OutsideRelations, tc.outside)
	}
	lc, err := s.ExpandLocal(ctx(t), []string{"NOBODY"}, graph.LocalOptions{TopChunks: 5, TopInsideRels: 5, TopOutsideRels: 5})
	if err != nil {
		t.Fatalf("ExpandLocal of a missing seed: %v", err)
	}
	if len(lc.Entities)+len(lc.Chunks)+len(lc.Communities)+len(lc.InsideRelations)+len(lc.OutsideRelations) != 0 {
		t.Errorf("ExpandLocal of a missing seed = %+v, want nothing", lc)
	}
}

// testDocumentLinks: three documents; p-1 (document P) mentions X and Y, X is also in Q and R,
// Y also in Q (twice, by two chunks), Z only in R. From p-1, X links P, Q and R (3 documents),
// Y links P and Q, each by its first chunk mentioning Y; Z is not reached. maxDocuments 2 leaves X out; unknown chunks link nothing.
func testDocumentLinks(t *testing.T, s graph.Store) {
	b := graph.Batch{}
	for _, d := range []string{"P", "Q", "R"} {
		b.Documents = append(b.Documents, graph.Document{ID: d, Title: d, Metadata: "{}"})
	}
	for i, c := range [][2]string{{"p-1", "P"}, {"p-2", "P"}, {"q-1", "Q"}, {"q-2", "Q"}, {"r-1", "R"}} {
		b.Chunks = append(b.Chunks, graph.Chunk{ID: c[0], DocumentID: c[1], Seq: i, Text: "chunk " + c[0], Tokens: 2})
	}
	for _, id := range []string{"X", "Y", "Z"} {
		b.Entities = append(b.Entities, graph.Entity{ID: id, Name: id, Type: "thing"})
	}
	for _, m := range [][2]string{{"p-1", "X"}, {"p-1", "Y"}, {"q-1", "X"}, {"q-1", "Y"}, {"q-2", "Y"}, {"r-1", "X"}, {"r-1", "Z"}, {"p-2", "Z"}} {
		b.Mentions = append(b.Mentions, graph.Mention{ChunkID: m[0], EntityID: m[1]})
	}
	apply(t, s, b)
	for _, tc := range []struct {
		name   string
		chunks []string
		max    int
		want   []graph.DocumentLink
	}{
		{"all", []string{"p-1"}, 10, []graph.DocumentLink{
			{EntityID: "X", DocumentID: "P", ChunkID: "p-1", Documents: 3}, {EntityID: "X", DocumentID: "Q", ChunkID: "q-1", Documents: 3},
			{EntityID: "X", DocumentID: "R", ChunkID: "r-1", Documents: 3},
			{EntityID: "Y", DocumentID: "P", ChunkID: "p-1", Documents: 2}, {EntityID: "Y", DocumentID: "Q", ChunkID: "q-1", Documents: 2},
		}},
		{"common entity left out", []string{"p-1", "unknown"}, 2, []graph.DocumentLink{
			{EntityID: "Y", DocumentID: "P", ChunkID: "p-1", Documents: 2}, {EntityID: "Y", DocumentID: "Q", ChunkID: "q-1", Documents: 2},
		}},
		{"unknown chunk", []string{"unknown"}, 10, nil},
		{"no chunks", nil, 10, nil},
	} {
		got, err := s.DocumentLinks(ctx(t), tc.chunks, tc.max)
		if err != nil {
			t.Fatalf("DocumentLinks %s: %v", tc.name, err)
		}
		if len(got) == 0 {
			got = nil
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("DocumentLinks %s = %v, want %v", tc.name, got, tc.want)
		}
	}
}
