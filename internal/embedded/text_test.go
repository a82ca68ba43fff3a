package embedded

import (
	"database/sql"
	"fmt"
	"reflect"
	"testing"

	"github.com/stratarag/strata/internal/graph"
)

// TestTextSearchKeepsTies checks that TextSearch, which looks ids up for the best k matches only,
// returns exactly the first k of all matches sorted by score, then id, also when many matches
// share the k-th score. The reference sorts every match without a cut.
func TestTextSearchKeepsTies(t *testing.T) {
	s := openTemp(t)
	var b graph.Batch
	// Twelve entities with the same text tie; three score higher (the word twice, shorter rows)
	// and two lower (longer rows); one does not match.
	add := func(id, desc string) {
		b.Entities = append(b.Entities, graph.Entity{ID: id, Name: id, Type: "thing", Description: desc})
	}
	for i := range 12 {
		add(fmt.Sprintf("TIE%02d", (i*7)%12), "a lantern by the harbour")
	}
	add("HIGH1", "lantern lantern")
	add("HIGH2", "lantern lantern harbour")
	add("HIGH3", "lantern")
	add("LOW1", "a lantern somewhere far along the old coast road past the mill and the bridge")
	add("LOW2", "a lantern somewhere far along the old coast road past the mill")
	add("NONE", "a quay")
	if err := s.Apply(t.Context(), b); err != nil {
		t.Fatal(err)
	}
	var all []graph.Hit
	if err := s.read(t.Context(), "reference", func(tx *sql.Tx) (err error) {
		all, err = queryAll(t.Context(), tx, func(sc scanner, _ ...any) (graph.Hit, error) {
			var h graph.Hit
			return h, sc.Scan(&h.ID, &h.Score)
		}, `SELECT e.id, -bm25(entity_text) AS score FROM entity_text JOIN entities e ON e.rid = entity_text.rowid
			WHERE entity_text MATCH '"lantern"' ORDER BY score DESC, e.id`)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if len(all) != 17 || all[3].Score != all[14].Score || all[2].Score == all[3].Score {
		t.Fatalf("the fixture does not tie as intended: %v", all)
	}
	for _, k := range []int{1, 3, 4, 9, 15, 16, 17, 40} {
		t.Run(fmt.Sprintf("k=%d", k), func(t *testing.T) {
			got, err := s.TextSearch(t.Context(), graph.EntityText, "lantern", k)
			if err != nil {
				t.Fatal(err)
			}
			if want := all[:min(k, len(all))]; !reflect.DeepEqual(got, want) {
				t.Errorf("TextSearch(k=%d) = %v, want %v", k, got, want)
			}
		})
	}
}
