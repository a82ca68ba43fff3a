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
// with no description.
func textBatch(rng *rand.Rand, prefix string, entities int) graph.Batch {
	var b graph.Batch
	for i := range entities {
		var words []string
		if i%17 != 0 {
			for range rng.IntN(30) {
				words = append(words, textWords[rng.IntN(len(textWords))])
			}
		}
		id := fmt.Sprintf("%s%03d", prefix, i)
		b.Entities = append(b.Entities, graph.Entity{ID: id, Name: id, Type: "thing", Description: strings.Join(words, " ")})
	}
	return b
}

// TestTextIndexMatchesFTS5 compares the entity text search of a resident reader (the in-memory
// index) with FTS5's (a writer, which is not resident), hit for hit and score for score (bit for
// bit), before and after writes that change the entities.
func TestTextIndexMatchesFTS5(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	dir := t.TempDir()
	w, err := Open(t.Context(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	r, err := Open(t.Context(), dir, Options{ReadOnly: true, Resident: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	queries := []string{"the", "The lantern", "solís Solis", "Straße", "CAFÉ harbour", "ærø", "αβγ", "हिन्दी lantern",
		"nothing matches", "1981 act", "Madonna's album"}
	for range 30 {
		var q []string
		for range 1 + rng.IntN(5) {
			q = append(q, textWords[rng.IntN(len(textWords))])
		}
		queries = append(queries, strings.Join(q, " "))
	}
	compare := func(step string) {
		t.Helper()
		// The first search answers from FTS5 and starts the load: once it is done, the index
		// of the writer's last generation answers.
		if _, err := r.TextSearch(t.Context(), graph.EntityText, "lantern", 1); err != nil {
			t.Fatal(err)
		}
		r.texts.wg.Wait()
		gen, err := generation(t.Context(), w.db, string(graph.EntityEmbedding))
		if err != nil {
			t.Fatal(err)
		}
		if r.texts.ti == nil || r.texts.ti.gen != gen {
			t.Fatalf("%s: the resident reader did not load the text index of generation %d", step, gen)
		}
		for _, q := range queries {
			for _, k := range []int{1, 5, 20, 400} {
				want, err := w.TextSearch(t.Context(), graph.EntityText, q, k)
				if err != nil {
					t.Fatal(err)
				}
				got, err := r.TextSearch(t.Context(), graph.EntityText, q, k)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("%s: TextSearch(%q, %d):\nresident %v\nFTS5     %v", step, q, k, got, want)
				}
			}
		}
		if r.texts.ti.gen != gen {
			t.Fatalf("%s: the resident reader loaded generation %d while comparing, not %d", step, r.texts.ti.gen, gen)
		}
	}
	r.texts.next = time.Time{}
	b := textBatch(rng, "E", 300)
	if err := w.Apply(t.Context(), b); err != nil {
		t.Fatal(err)
	}
	compare("first load")
	if ti := r.texts.ti; len(ti.postings[ti.terms["the"]])*2 <= int(ti.rows) {
		t.Fatalf("\"the\" is in %d of %d rows: its idf is not clamped, the test misses that case", len(ti.postings[ti.terms["the"]]), ti.rows)
	}

	// New descriptions, new entities and deleted ones must reach the resident reader.
	changed := textBatch(rng, "E", 120)
	changed.Entities = append(changed.Entities, textBatch(rng, "F", 50).Entities...)
	if err := w.Apply(t.Context(), changed); err != nil {
		t.Fatal(err)
	}
	r.texts.next = time.Time{} // no spacing between loads: the test waits for each
	compare("after new descriptions")
	if err := w.Apply(t.Context(), graph.Batch{DeleteEntities: []string{"E001", "E002", "F010"}}); err != nil {
		t.Fatal(err)
	}
	r.texts.next = time.Time{}
	compare("after deleted entities")
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
