package storetest

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stratarag/strata/internal/graph"
)

// MentionsBatch is a store of docs documents of chunks chunks each, whose chunks mention one to
// four of entities entities, so that entities are in one, a few or most documents.
func MentionsBatch(rng *rand.Rand, docs, chunks, entities int) graph.Batch {
	var b graph.Batch
	for i := range entities {
		id := fmt.Sprintf("E%03d", i)
		b.Entities = append(b.Entities, graph.Entity{ID: id, Name: id, Type: "thing"})
	}
	for d := range docs {
		doc := fmt.Sprintf("doc%d", d)
		b.Documents = append(b.Documents, graph.Document{ID: doc, Title: doc, Metadata: "{}"})
		for i := range chunks {
			id := fmt.Sprintf("c%x", rng.Uint64()) // ids out of seq order
			b.Chunks = append(b.Chunks, graph.Chunk{ID: id, DocumentID: doc, Seq: i, Text: id})
			seen := map[string]bool{}
			for range 1 + rng.IntN(4) {
				e := fmt.Sprintf("E%03d", rng.IntN(entities))
				if !seen[e] {
					seen[e] = true
					b.Mentions = append(b.Mentions, graph.Mention{ChunkID: id, EntityID: e})
				}
			}
		}
	}
	return b
}

// DocumentLinksFollowWrites checks a resident reader r of the store that w writes (as strata
// serve reads beside an ingest): on random stores, before and after writes that change the
// mentions, its in-memory DocumentLinks must answer what w answers from the database. used
// tells whether r answered from memory.
func DocumentLinksFollowWrites(t *testing.T, w, r graph.Store, used func() bool) {
	t.Helper()
	rng := rand.New(rand.NewPCG(3, 4))
	b := MentionsBatch(rng, 8, 10, 60)
	chunkIDs := func() []string {
		var ids []string
		for _, c := range b.Chunks {
			ids = append(ids, c.ID)
		}
		return ids
	}
	compare := func(step string) {
		t.Helper()
		ids := chunkIDs()
		nonEmpty := 0
		for i := range 40 {
			from := []string{"missing"}
			for range 1 + rng.IntN(6) {
				from = append(from, ids[rng.IntN(len(ids))])
			}
			maxDocs := 1 + i%9
			want, err := w.DocumentLinks(ctx(t), from, maxDocs)
			if err != nil {
				t.Fatal(err)
			}
			got, err := r.DocumentLinks(ctx(t), from, maxDocs)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("%s: DocumentLinks(%v, %d):\nresident %v\nwriter   %v", step, from, maxDocs, got, want)
			}
			if len(want) > 0 {
				nonEmpty++
			}
		}
		if !used() {
			t.Fatalf("%s: the resident reader did not use its mention index", step)
		}
		if nonEmpty < 20 {
			t.Fatalf("%s: only %d of 40 comparisons had links; the test compares little", step, nonEmpty)
		}
	}
	if err := w.Apply(ctx(t), b); err != nil {
		t.Fatal(err)
	}
	compare("first load")

	// New mentions only, then a deleted document, then deleted mentions and an entity: each
	// must reach the resident reader.
	var more graph.Batch
	for _, c := range b.Chunks[:20] {
		m := graph.Mention{ChunkID: c.ID, EntityID: fmt.Sprintf("E%03d", rng.IntN(60))}
		more.Mentions = append(more.Mentions, m)
		b.Mentions = append(b.Mentions, m)
	}
	if err := w.Apply(ctx(t), more); err != nil {
		t.Fatal(err)
	}
	compare("after new mentions")
	if err := w.Apply(ctx(t), graph.Batch{DeleteDocuments: []string{"doc3"}}); err != nil {
		t.Fatal(err)
	}
	// doc3's chunks are still asked for: unknown ids are ignored.
	compare("after a deleted document")
	if err := w.Apply(ctx(t), graph.Batch{
		DeleteMentions: []graph.MentionKey{{ChunkID: b.Mentions[0].ChunkID, EntityID: b.Mentions[0].EntityID}},
		DeleteEntities: []string{"E001", "E002"},
	}); err != nil {
		t.Fatal(err)
	}
	compare("after deleted mentions and entities")
}
