package textindex

import (
	"context"
	"math"
	"reflect"
	"testing"

	"github.com/stratarag/strata/internal/graph"
)

// mathLog is Log with math.Log.
func mathLog(_ context.Context, x float64) (float64, error) { return math.Log(x), nil }

// bm25 is FTS5's bm25 of one row for the query terms, computed directly: idf from the rows
// holding each term (clamped to 1e-6 when not positive), k1 1.2, b 0.75.
func bm25(rows [][]string, row int, terms []string) float64 {
	var tokens int
	for _, r := range rows {
		tokens += len(r)
	}
	avgdl := float64(tokens) / float64(len(rows))
	var score float64
	for _, t := range terms {
		nHit, freq := 0, 0
		for i, r := range rows {
			n := 0
			for _, w := range r {
				if w == t {
					n++
				}
			}
			if n > 0 {
				nHit++
			}
			if i == row {
				freq = n
			}
		}
		if nHit == 0 {
			continue
		}
		idf := math.Log((float64(len(rows)-nHit) + 0.5) / (float64(nHit) + 0.5))
		if idf <= 0 {
			idf = 1e-6
		}
		f, d := float64(freq), float64(len(rows[row]))
		score += idf * (f * 2.2) / (f + 1.2*(0.25+0.75*d/avgdl))
	}
	return score
}

// TestSearch: an index built from rows and their tokens (ordered by term, then row, as
// fts5vocab lists them) ranks rows by bm25, best first then by id, keeps k, and returns nothing
// when no term matches.
func TestSearch(t *testing.T) {
	ids := []string{"d", "a", "c", "b"}
	rows := [][]string{
		{"harbor", "guild", "guild"},
		{"harbor", "light"},
		{"guild", "rector", "harbor", "light", "light"},
		{"harbor", "light"},
	}
	b := NewBuilder()
	for _, id := range ids {
		b.AddRow(id)
	}
	for _, term := range []string{"guild", "harbor", "light", "rector"} { // term order
		for row, words := range rows {
			for _, w := range words {
				if w == term {
					b.AddToken([]byte(term), int32(row))
				}
			}
		}
	}
	ti := b.Index()
	if ti.Rows() != 4 || ti.RowsWith("light") != 3 || ti.RowsWith("none") != 0 {
		t.Fatalf("Rows %d, RowsWith(light) %d, RowsWith(none) %d", ti.Rows(), ti.RowsWith("light"), ti.RowsWith("none"))
	}
	for _, tc := range []struct {
		name  string
		terms []string
		k     int
		want  []int // rows, best first
	}{
		{"one term", []string{"guild"}, 10, []int{0, 2}},
		{"ties by id", []string{"light"}, 10, []int{1, 3, 2}}, // a and b tie; c is longer
		{"k keeps the best", []string{"light", "rector"}, 1, []int{2}},
		{"no match", []string{"none"}, 10, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ti.Search(t.Context(), mathLog, tc.terms, tc.k)
			if err != nil {
				t.Fatal(err)
			}
			var want []graph.Hit
			for _, r := range tc.want {
				want = append(want, graph.Hit{ID: ids[r], Score: bm25(rows, r, tc.terms)})
			}
			if len(got) != len(want) {
				t.Fatalf("got %v, want %v", got, want)
			}
			for i := range got {
				if got[i].ID != want[i].ID || math.Abs(got[i].Score-want[i].Score) > 1e-12 {
					t.Fatalf("got %v, want %v", got, want)
				}
			}
			if !reflect.DeepEqual(got == nil, want == nil) {
				t.Fatalf("got nil %v, want nil %v", got == nil, want == nil)
			}
		})
	}
}
