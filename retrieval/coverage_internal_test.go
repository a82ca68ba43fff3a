package retrieval

import (
	"math"
	"slices"
	"testing"

	"github.com/stratarag/strata/internal/graph"
)

func TestCoverageGain(t *testing.T) {
	chunk := func(doc, text string) graph.Chunk { return graph.Chunk{ID: doc + "-0", DocumentID: doc, Text: text} }
	lexical := []graph.Chunk{
		chunk("heron", "The Grey Heron was built at Dunmarrow in 1112."),
		chunk("plague", "The Ashfever Plague struck Dunmarrow in 1119."),
		chunk("heron", "A later chunk of the first document names the plague."), // not its best chunk
		chunk("other", "Dunmarrow builds ships."),
	}
	titles := map[string]string{"heron": "Grey Heron", "plague": "Ashfever", "other": "Dunmarrow"}
	cov := newCoverage("What plague struck the town where the Grey Heron was built?", lexical, titles)
	// Among 3 candidates, a question word in 1 of them weighs ln(1 + 2.5/1.5), one in none
	// ln(1 + 3.5/0.5): heron's best chunk lacks plague and struck (in plague's chunk) and town
	// (in no chunk); plague's lacks grey, heron and built (all in heron's best chunk and title).
	one, none := math.Log(1+2.5/1.5), math.Log(1+3.5/0.5)
	for _, tc := range []struct {
		first, doc string
		want       float64
	}{
		{"heron", "plague", 2 * one / (2*one + none)},
		{"heron", "other", 0},
		{"heron", "missing", 0}, // a document no lexical chunk stands for holds nothing
		{"plague", "heron", 3 * one / (3*one + none)},
	} {
		if got := cov.gain(tc.first, tc.doc); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("gain(%s, %s) = %.4f, want %.4f", tc.first, tc.doc, got, tc.want)
		}
	}
}

func TestChooseSecond(t *testing.T) {
	chunk := func(doc, text string) graph.Chunk { return graph.Chunk{ID: doc + "-0", DocumentID: doc, Text: text} }
	lexical := []graph.Chunk{
		chunk("a", "alpha beta"),
		chunk("b", "alpha beta"),
		chunk("c", "alpha gamma"),
	}
	for _, tc := range []struct {
		name  string
		score map[string]float64
		want  []string
	}{
		{"the document holding the missing word moves up", map[string]float64{"a": 1, "b": 0.5, "c": 0.4}, []string{"a", "c", "b"}},
		{"unless its score is too far behind", map[string]float64{"a": 1, "b": 0.5, "c": 0.5 - coverageWeight - 0.01}, []string{"a", "b", "c"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cov := newCoverage("alpha beta gamma", lexical, nil)
			docs := []string{"a", "b", "c"}
			cov.chooseSecond(docs, tc.score)
			if !slices.Equal(docs, tc.want) {
				t.Errorf("documents %v, want %v", docs, tc.want)
			}
		})
	}
}
