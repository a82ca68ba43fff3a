package embedded

import (
	"database/sql"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stratarag/strata/internal/graph"
)

// textWords is the vocabulary of textBatch: "the" is in most rows (FTS5 then clamps its idf to
// 1e-6), a few words are common, most rare; some are not ASCII, "solís" and "solis" are one
// term, and "हिन्दी" is three tokens (a phrase).
var textWords = strings.Fields(`the the the the the the the harbour harbour harbour lantern lantern
	mill bridge road coast river Solís solis Straße café Ærø ΑΒΓ हिन्दी tower queen king 1981 act
	album virgin county kentucky boxer titles empire ruled witch atlas dedicated pun puns language`)

// textBatch is entities entities with descriptions of up to 30 words of textWords, a few of them
// with no description, and docs documents of 8 chunks of up to 60 words, titled with up to 3.
func textBatch(rng *rand.Rand, prefix string, entities, docs int) graph.Batch {
	words := func(n int) string {
		var w []string
		for range n {
			w = append(w, textWords[rng.IntN(len(textWords))])
		}
		return strings.Join(w, " ")
	}
	var b graph.Batch
	for i := range entities {
		desc := ""
		if i%17 != 0 {
			desc = words(rng.IntN(30))
		}
		id := fmt.Sprintf("%s%03d", prefix, i)
		b.Entities = append(b.Entities, graph.Entity{ID: id, Name: id, Type: "thing", Description: desc})
	}
	for d := range docs {
		doc := fmt.Sprintf("%sdoc%d", prefix, d)
		b.Documents = append(b.Documents, graph.Document{ID: doc, Title: words(rng.IntN(4)), Metadata: "{}"})
		for i := range 8 {
			b.Chunks = append(b.Chunks, graph.Chunk{ID: fmt.Sprintf("%s-%d", doc, i), DocumentID: doc, Seq: i, Text: words(rng.IntN(60))})
		}
	}
	return b
}

// TestTextIndexMatchesFTS5 compares the text searches of a resident reader (the in-memory
// indexes) with FTS5's (a writer, which is not resident), hit for hit and score for score (bit for
// bit), before and after writes that change the entities, the chunks and a document's title.
func TestTextIndexMatchesFTS5(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	w, r := writerAndResident(t)
	queries := []string{"the", "The lantern", "solís Solis", "Straße", "CAFÉ harbour", "ærø", "αβγ", "हिन्दी lantern",
		"nothing matches", "1981 act", "Madonna's album"}
	for range 30 {
		var q []string
		for range 1 + rng.IntN(5) {
			q = append(q, textWords[rng.IntN(len(textWords))])
		}
		queries = append(queries, strings.Join(q, " "))
	}
	indexes := []graph.TextIndex{graph.EntityText, graph.ChunkText}
	compare := func(step string) {
		t.Helper()
		for _, index := range indexes {
			// The first search answers from FTS5 and starts the load (no spacing between loads
			// here: the test waits for each); once it is done, the copy of the writer's last
			// generation answers.
			c := r.textCache(index)
			c.next = time.Time{}
			if _, err := r.TextSearch(t.Context(), index, "lantern", 1); err != nil {
				t.Fatal(err)
			}
			c.wg.Wait()
			fi, _ := ftsIndexOf(index)
			gen, err := generation(t.Context(), w.db, fi.gen)
			if err != nil {
				t.Fatal(err)
			}
			if c.ti == nil || c.ti.gen != gen {
				t.Fatalf("%s: the resident reader did not load %s of generation %d", step, index, gen)
			}
			for _, q := range queries {
				for _, k := range []int{1, 5, 20, 400} {
					want, err := w.TextSearch(t.Context(), index, q, k)
					if err != nil {
						t.Fatal(err)
					}
					got, err := r.TextSearch(t.Context(), index, q, k)
					if err != nil {
						t.Fatal(err)
					}
					if !reflect.DeepEqual(got, want) {
						t.Fatalf("%s: TextSearch(%s, %q, %d):\nresident %v\nFTS5     %v", step, index, q, k, got, want)
					}
				}
			}
			if c.ti.gen != gen {
				t.Fatalf("%s: the resident reader loaded generation %d of %s while comparing, not %d", step, c.ti.gen, index, gen)
			}
		}
	}
	b := textBatch(rng, "E", 300, 6)
	if err := w.Apply(t.Context(), b); err != nil {
		t.Fatal(err)
	}
	compare("first load")
	for _, index := range indexes {
		ti := r.textCache(index).ti
		if n := ti.RowsWith("the"); n*2 <= ti.Rows() {
			t.Fatalf("%s: \"the\" is in %d of %d rows: its idf is not clamped, the test misses that case", index, n, ti.Rows())
		}
	}

	// New descriptions and chunks, new entities and deleted ones, a renamed document: each must
	// reach the resident reader.
	changed := textBatch(rng, "E", 120, 2)
	more := textBatch(rng, "F", 50, 1)
	changed.Entities = append(changed.Entities, more.Entities...)
	changed.Documents = append(changed.Documents, more.Documents...)
	changed.Chunks = append(changed.Chunks, more.Chunks...)
	if err := w.Apply(t.Context(), changed); err != nil {
		t.Fatal(err)
	}
	compare("after new descriptions and chunks")
	if err := w.Apply(t.Context(), graph.Batch{DeleteEntities: []string{"E001", "E002", "F010"}, DeleteDocuments: []string{"Edoc3"}}); err != nil {
		t.Fatal(err)
	}
	compare("after deleted entities and a deleted document")
	if err := w.Apply(t.Context(), graph.Batch{Documents: []graph.Document{{ID: "Edoc4", Title: "lantern lantern Straße harbour", Metadata: "{}"}}}); err != nil {
		t.Fatal(err)
	}
	compare("after a renamed document")
}

// TestFTSTokens checks the tokenizer the in-memory index reads non-ASCII query words with, and
// that it is the one of the full-text indexes.
func TestFTSTokens(t *testing.T) {
	tests := []struct {
		word string
		want []string
	}{
		{"Solís", []string{"solis"}},
		{"straße", []string{"straße"}},
		{"ÆRØ", []string{"ærø"}},
		{"हिन्दी", []string{"ह", "न", "द"}},
		{"e\u0301te", []string{"ete"}},
	}
	for _, tc := range tests {
		got, err := ftsTokens(t.Context(), tc.word)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ftsTokens(%q) = %q, want %q", tc.word, got, tc.want)
		}
	}
	s := openTemp(t)
	for _, table := range []string{"entity_text", "chunk_text"} {
		var ddl string
		if err := s.read(t.Context(), "schema", func(tx *sql.Tx) error {
			return tx.QueryRowContext(t.Context(), `SELECT sql FROM sqlite_schema WHERE name = ?`, table).Scan(&ddl)
		}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(ddl, "tokenize='"+ftsTokenize+"'") {
			t.Errorf("%s is not tokenized with %q: %s", table, ftsTokenize, ddl)
		}
	}
}

// TestUnchangedTextLeavesFullTextIndex: rewriting an entity or a chunk with the same text (the
// embed stage adds embeddings through the same upsert) writes nothing to the full-text index,
// while a changed description replaces the indexed words.
func TestUnchangedTextLeavesFullTextIndex(t *testing.T) {
	ctx := t.Context()
	s, err := Open(ctx, t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	doc := graph.Document{ID: "d", Title: "Harbour logs"}
	chunk := graph.Chunk{ID: "c", DocumentID: "d", Text: "the keeper lit the lamp", Tokens: 5}
	ent := graph.Entity{ID: "KEEPER", Name: "Keeper", Type: "person", Description: "tends the lamp"}
	if err := s.Apply(ctx, graph.Batch{Documents: []graph.Document{doc}, Chunks: []graph.Chunk{chunk}, Entities: []graph.Entity{ent}}); err != nil {
		t.Fatal(err)
	}
	// Every transaction that changes an FTS5 index adds a segment row to its data table.
	segments := func() (n [2]int) {
		t.Helper()
		q := `SELECT (SELECT count(*) FROM entity_text_data), (SELECT count(*) FROM chunk_text_data)`
		if err := s.db.QueryRowContext(ctx, q).Scan(&n[0], &n[1]); err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := segments()
	chunk.Embedding, ent.Embedding = []float32{1, 0, 0}, []float32{0, 1, 0}
	if err := s.Apply(ctx, graph.Batch{Chunks: []graph.Chunk{chunk}, Entities: []graph.Entity{ent}}); err != nil {
		t.Fatal(err)
	}
	if after := segments(); after != before {
		t.Errorf("rewriting unchanged text changed the full-text indexes: segments (entities, chunks) %v -> %v", before, after)
	}

	ent.Description = "rows the ferry"
	if err := s.Apply(ctx, graph.Batch{Entities: []graph.Entity{ent}}); err != nil {
		t.Fatal(err)
	}
	for word, want := range map[string]int{"ferry": 1, "lamp": 0} {
		hits, err := s.TextSearch(ctx, graph.EntityText, word, 5)
		if err != nil || len(hits) != want {
			t.Errorf("after a new description, entity search %q = %v, %v; want %d hits", word, hits, err, want)
		}
	}
}
