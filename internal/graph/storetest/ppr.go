package storetest

import (
	"slices"
	"testing"

	"github.com/stratarag/strata/internal/graph"
)

// pprBatch is a graph full of ties for graph.ChunkRanker: B and C are mirror images, so are the
// chunks naming only one of them, and the five chunks naming only D tie but for the one seeded.
// Chunk ids do not follow the order the chunks are written in, so ties must be broken by id.
//
//	A -2- B -1- D -0 (counts 1)- E          A, D -SUMMARIZED_BY-> S (not walked)
//	A -2- C -1- D
//	A: k05 k02 k08;  B: k11 k07;  C: k13 k04;  D: k12 k06 k01 k10 k03 k08;  E: k14;  k09 none
func pprBatch() graph.Batch {
	var b graph.Batch
	for _, d := range []string{"doc-a", "doc-b", "doc-c", "doc-d"} {
		b.Documents = append(b.Documents, graph.Document{ID: d, Title: d, Metadata: "{}"})
	}
	for _, id := range []string{"A", "B", "C", "D", "E"} {
		b.Entities = append(b.Entities, graph.Entity{ID: id, Name: id, Type: "thing"})
	}
	b.Entities = append(b.Entities, graph.Entity{ID: "S", Name: "S", Type: "thing", Layer: 1})
	for _, r := range []graph.Relation{{Source: "A", Target: "B", Weight: 2}, {Source: "A", Target: "C", Weight: 2},
		{Source: "B", Target: "D", Weight: 1}, {Source: "C", Target: "D", Weight: 1}, {Source: "D", Target: "E", Weight: 0}} {
		r.Description = r.Source + " and " + r.Target
		b.Relations = append(b.Relations, r)
	}
	b.SummaryLinks = []graph.SummaryLink{{Member: "A", Summary: "S", Weight: 5}, {Member: "D", Summary: "S", Weight: 5}}
	mentions := []struct {
		chunk, doc string
		entities   []string
	}{
		{"k05", "doc-a", []string{"A"}}, {"k02", "doc-a", []string{"A"}}, {"k08", "doc-a", []string{"A", "D"}},
		{"k11", "doc-b", []string{"B"}}, {"k07", "doc-b", []string{"B"}},
		{"k13", "doc-c", []string{"C"}}, {"k04", "doc-c", []string{"C"}}, {"k09", "doc-c", nil},
		{"k12", "doc-d", []string{"D"}}, {"k06", "doc-d", []string{"D"}}, {"k01", "doc-d", []string{"D"}},
		{"k10", "doc-d", []string{"D"}}, {"k03", "doc-d", []string{"D"}}, {"k14", "doc-d", []string{"E"}},
	}
	seq := map[string]int{}
	for _, m := range mentions {
		b.Chunks = append(b.Chunks, graph.Chunk{ID: m.chunk, DocumentID: m.doc, Seq: seq[m.doc], Text: "chunk " + m.chunk, Tokens: 2})
		seq[m.doc]++
		for _, e := range m.entities {
			b.Mentions = append(b.Mentions, graph.Mention{ChunkID: m.chunk, EntityID: e})
		}
	}
	return b
}

func pprTests() []test {
	return []test{{"PPRChunks", testPPRChunks}}
}

// testPPRChunks: the top chunks of a walk from two entities and a chunk, whatever the backend
// (Go on the embedded store, GDS on Neo4j), with every tie broken by chunk id.
func testPPRChunks(t *testing.T, s graph.Store) {
	r, ok := s.(graph.ChunkRanker)
	if !ok {
		t.Fatalf("%T does not implement graph.ChunkRanker", s)
	}
	if err := s.Apply(ctx(t), pprBatch()); err != nil {
		t.Fatal(err)
	}
	seeds := []graph.PPRSeed{
		{ID: "A", Weight: 1}, {ID: "D", Weight: 0.5}, {ID: "k12", Chunk: true, Weight: 0.1},
		{ID: "NOPE", Weight: 1}, {ID: "k12", Weight: 1}, // no such entity: normalised with, then skipped
	}
	for _, tc := range []struct {
		name string
		opt  graph.PPROptions
		k    int
		want []string
	}{
		// D's seeded chunk, k08 (A's and D's), A's two, D's four others, then B's and C's
		// four mirror images by id: the cut at 10 falls inside their tie.
		{"converged", graph.PPROptions{Damping: 0.5, MaxIterations: 20, Tolerance: 1e-7}, 10,
			[]string{"k12", "k08", "k02", "k05", "k01", "k03", "k06", "k10", "k04", "k07"}},
		{"two supersteps", graph.PPROptions{Damping: 0.5, MaxIterations: 2}, 10,
			[]string{"k12", "k08", "k02", "k05", "k01", "k03", "k06", "k10"}},
		{"top 3", graph.PPROptions{Damping: 0.85, MaxIterations: 30, Tolerance: 1e-9}, 3,
			[]string{"k08", "k12", "k02"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hits, err := r.PPRChunks(ctx(t), seeds, tc.opt, tc.k)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for i, h := range hits {
				got = append(got, h.ID)
				if i > 0 && h.Score > hits[i-1].Score+1e-9 {
					t.Errorf("%s (%v) scores above %s (%v)", h.ID, h.Score, hits[i-1].ID, hits[i-1].Score)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("PPRChunks = %v, want %v (hits %v)", got, tc.want, hits)
			}
		})
	}
	// Weights as retrieval gives them (1/(1+rank)), mirrored: B and C, each one's chunks at 1/2
	// and 1/3. Their shares take several bits each, so GDS sums several runs per seed; the
	// mirror images must still tie, and the cut at 10 falls inside D's five chunks.
	mirrored := []graph.PPRSeed{
		{ID: "B", Weight: 1}, {ID: "C", Weight: 1},
		{ID: "k11", Chunk: true, Weight: 1.0 / 2}, {ID: "k13", Chunk: true, Weight: 1.0 / 2},
		{ID: "k07", Chunk: true, Weight: 1.0 / 3}, {ID: "k04", Chunk: true, Weight: 1.0 / 3},
	}
	// The seeded pairs by weight, k08 (reached from A and D), A's two, then D's five, cut at 10.
	wantMirrored := []string{"k11", "k13", "k04", "k07", "k08", "k02", "k05", "k01", "k03", "k06"}
	hits, err := r.PPRChunks(ctx(t), mirrored, graph.PPROptions{Damping: 0.5, MaxIterations: 20, Tolerance: 1e-7}, 10)
	if got := hitIDs(hits); err != nil || !slices.Equal(got, wantMirrored) {
		t.Errorf("PPRChunks from mirrored seeds = %v, %v; want %v (hits %v)", got, err, wantMirrored, hits)
	}
	hits, err = r.PPRChunks(ctx(t), []graph.PPRSeed{{ID: "NOPE", Weight: 1}}, graph.PPROptions{Damping: 0.5, MaxIterations: 20}, 10)
	if err != nil || len(hits) != 0 {
		t.Errorf("unknown seeds: %v, %v; want no hits", hits, err)
	}
}

func hitIDs(hits []graph.Hit) []string {
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	return ids
}
