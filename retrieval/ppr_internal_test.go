package retrieval

import (
	"math"
	"testing"

	"github.com/stratarag/strata/internal/graph"
)

// TestMatchFacts: relations are scored by their best piece of evidence, by the question words it
// holds; relations holding none are left out, ties go by key. Without lexical candidates every
// question word weighs the same (idf of a word no candidate holds), so scores count words.
func TestMatchFacts(t *testing.T) {
	const question = "Drew Fuller starred in which series broadcast by The WB?"
	ev := func(s, t, text string) graph.RelationEvidence {
		return graph.RelationEvidence{Source: s, Target: t, ChunkID: "c", Description: text}
	}
	evidence := []graph.RelationEvidence{
		ev("A", "B", "Drew Fuller starred in Charmed."),  // drew, fuller, starred
		ev("C", "F", "The WB broadcast it."),             // wb, broadcast
		ev("B", "C", "Charmed was broadcast by The WB."), // broadcast, wb: ties C–F, key first
		ev("A", "B", "Fuller was there."),                // a weaker piece: A–B keeps its best
		ev("D", "E", "Nothing here matches."),
	}
	got := matchFacts(question, nil, evidence)
	want := []struct {
		key   graph.RelationKey
		words int
	}{{graph.RelationKey{Source: "A", Target: "B"}, 3}, {graph.RelationKey{Source: "B", Target: "C"}, 2}, {graph.RelationKey{Source: "C", Target: "F"}, 2}}
	if len(got) != len(want) {
		t.Fatalf("matchFacts = %v, want %d facts", got, len(want))
	}
	unit := got[0].score / 3
	for i, w := range want {
		if got[i].key != w.key || math.Abs(got[i].score-float64(w.words)*unit) > 1e-12 {
			t.Errorf("fact %d = %v (%.3f words), want %v with %d words", i, got[i].key, got[i].score/unit, w.key, w.words)
		}
	}
	if len(matchFacts(question, nil, nil)) != 0 {
		t.Error("facts without evidence")
	}
}
