package embedded

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/graph/storetest"
)

// TestContractResident runs the contract suite on a Resident store: its in-memory read paths
// must answer what SQLite answers, and follow every write.
func TestContractResident(t *testing.T) {
	storetest.Run(t, func(t *testing.T) graph.Store {
		s, err := Open(t.Context(), t.TempDir(), Options{Resident: true})
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		t.Cleanup(func() {
			if err := s.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		})
		return s
	})
}

// mentionsBatch is a store of docs documents of chunks chunks each, whose chunks mention one to
// four of entities entities, so that entities are in one, a few or most documents.
func mentionsBatch(rng *rand.Rand, docs, chunks, entities int) graph.Batch {
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

// TestDocumentLinksResident compares the mention index with documentLinksSQL on random stores,
// before and after writes that change the mentions, through a resident reader opened beside the
// writer (as strata serve runs beside an ingest).
func TestDocumentLinksResident(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	w, r := writerAndResident(t)
	b := mentionsBatch(rng, 8, 10, 60)
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
			want, err := w.DocumentLinks(t.Context(), from, maxDocs)
			if err != nil {
				t.Fatal(err)
			}
			got, err := r.DocumentLinks(t.Context(), from, maxDocs)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: DocumentLinks(%v, %d):\nresident %v\nSQL      %v", step, from, maxDocs, got, want)
			}
			if len(want) > 0 {
				nonEmpty++
			}
		}
		if r.mentions.mi == nil {
			t.Fatalf("%s: the resident reader did not use its mention index", step)
		}
		if nonEmpty < 20 {
			t.Fatalf("%s: only %d of 40 comparisons had links; the test compares little", step, nonEmpty)
		}
	}
	if err := w.Apply(t.Context(), b); err != nil {
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
	if err := w.Apply(t.Context(), more); err != nil {
		t.Fatal(err)
	}
	compare("after new mentions")
	if err := w.Apply(t.Context(), graph.Batch{DeleteDocuments: []string{"doc3"}}); err != nil {
		t.Fatal(err)
	}
	// doc3's chunks are still asked for: unknown ids are ignored.
	compare("after a deleted document")
	if err := w.Apply(t.Context(), graph.Batch{
		DeleteMentions: []graph.MentionKey{{ChunkID: b.Mentions[0].ChunkID, EntityID: b.Mentions[0].EntityID}},
		DeleteEntities: []string{"E001", "E002"},
	}); err != nil {
		t.Fatal(err)
	}
	compare("after deleted mentions and entities")
}

// TestResidentReaderOfVersion5 checks that a resident reader uses a store of schema version 5
// as it is (no mentions generation, no communities_rating: SQLite answers), and that the next
// writer upgrades it to what the in-memory paths need.
func TestResidentReaderOfVersion5(t *testing.T) {
	dir := t.TempDir()
	w, err := Open(t.Context(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b := mentionsBatch(rand.New(rand.NewPCG(7, 8)), 4, 6, 20)
	if err := w.Apply(t.Context(), b); err != nil {
		t.Fatal(err)
	}
	if _, err := w.ComputeCommunities(t.Context(), graph.DefaultLeidenParams()); err != nil {
		t.Fatal(err)
	}
	var chunks, seeds []string
	for _, c := range b.Chunks[:5] {
		chunks = append(chunks, c.ID)
	}
	for _, e := range b.Entities[:8] {
		seeds = append(seeds, e.ID)
	}
	wantLinks, err := w.DocumentLinks(t.Context(), chunks, 3)
	if err != nil {
		t.Fatal(err)
	}
	opt := graph.LocalOptions{TopChunks: 5, TopCommunities: 4}
	wantLocal, err := w.ExpandLocal(t.Context(), seeds, opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(wantLinks) == 0 || len(wantLocal.Communities) == 0 {
		t.Fatalf("the store gives nothing to compare: %d links, %d communities", len(wantLinks), len(wantLocal.Communities))
	}
	for _, q := range []string{
		`DROP INDEX communities_rating`, `DELETE FROM generations WHERE name = 'mentions'`,
		`ALTER TABLE chunks DROP COLUMN first_page`, `ALTER TABLE chunks DROP COLUMN last_page`, `PRAGMA user_version = 5`,
	} {
		if _, err := w.db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	r, err := Open(t.Context(), dir, Options{ReadOnly: true, Resident: true})
	if err != nil {
		t.Fatalf("resident open of a version 5 store: %v", err)
	}
	links, err := r.DocumentLinks(t.Context(), chunks, 3)
	if err != nil || !reflect.DeepEqual(links, wantLinks) {
		t.Errorf("version 5 store: DocumentLinks = %v, %v; want %v", links, err, wantLinks)
	}
	local, err := r.ExpandLocal(t.Context(), seeds, opt)
	if err != nil || !reflect.DeepEqual(local, wantLocal) {
		t.Errorf("version 5 store: ExpandLocal = %+v, %v; want %+v", local, err, wantLocal)
	}
	r.Close()

	w, err = Open(t.Context(), dir, Options{})
	if err != nil {
		t.Fatalf("upgrading open: %v", err)
	}
	defer w.Close()
	var n int
	if err := w.db.QueryRow(`SELECT count(*) FROM generations WHERE name = 'mentions'`).Scan(&n); err != nil || n != 1 {
		t.Errorf("after the upgrade: %d mentions generations, %v", n, err)
	}
	if err := w.db.QueryRow(`SELECT count(*) FROM sqlite_schema WHERE name = 'communities_rating'`).Scan(&n); err != nil || n != 1 {
		t.Errorf("after the upgrade: %d communities_rating indexes, %v", n, err)
	}
}

// writerAndResident opens a new store and, beside its writer, a read-only resident reader (as
// strata serve runs beside an ingest); both are closed when the test ends.
func writerAndResident(t *testing.T) (w, r *Store) {
	t.Helper()
	dir := t.TempDir()
	w, err := Open(t.Context(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	r, err = Open(t.Context(), dir, Options{ReadOnly: true, Resident: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return w, r
}
