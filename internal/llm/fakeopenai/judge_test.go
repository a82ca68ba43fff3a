package fakeopenai

import (
	"testing"

	"github.com/stratarag/strata/internal/llmtask/pairjudge"
)

// TestJudgeAnswers: the fake judge follows the verdict schema, prefers the answer that covers
// the question with cited, named detail, swaps its winners with the order, ties identical
// answers, and breaks its verdicts under the malformed and unreadable faults.
func TestJudgeAnswers(t *testing.T) {
	const (
		q    = "Who founded the Saltmere Cartographers' Guild, and what did she invent?"
		rich = "Ilsa Marrow founded the Saltmere Cartographers' Guild in 1102 [doc:harbor-guild.md]. She invented the Marrow Astrolabe [doc:marrow-astrolabe.md]."
		poor = "Someone founded it."
	)
	verdict := func(s *Server, a, b string) (pairjudge.Verdict, int, error) {
		t.Helper()
		p, err := pairjudge.Prompt(q, a, b)
		if err != nil {
			t.Fatal(err)
		}
		return pairjudge.Parse(post(t, s, "/v1/chat/completions", chatBody(p)).content)
	}
	s := newServer(t, Options{})
	ab, dropped, err := verdict(s, rich, poor)
	if err != nil || dropped != 0 || len(ab) != 4 {
		t.Fatalf("verdict %v, %d dropped, %v", ab, dropped, err)
	}
	for _, d := range pairjudge.Dimensions {
		if ab[d] != pairjudge.WinnerA {
			t.Errorf("%s: %s, want A (the cited, detailed answer)", d, ab[d])
		}
	}
	ba, _, _ := verdict(s, poor, rich)
	if ba[pairjudge.Overall] != pairjudge.WinnerB || ba[pairjudge.Diversity] != pairjudge.WinnerB {
		t.Errorf("other order: %v", ba)
	}
	if same, _, _ := verdict(s, rich, rich); same[pairjudge.Overall] != pairjudge.Tie {
		t.Errorf("identical answers: %v", same)
	}
	if c := s.Counts(); c.ByTask[judgeTask] != 3 {
		t.Errorf("by task %v", c.ByTask)
	}

	if _, _, err := verdict(newServer(t, Options{UnreadableRate: 1}), rich, poor); err == nil {
		t.Error("an unreadable verdict was read")
	}
	mangled, dropped, err := verdict(newServer(t, Options{MalformedRate: 1}), rich, poor)
	if err != nil || dropped == 0 || len(mangled) == 0 {
		t.Errorf("a mangled verdict: %v, %d dropped, %v; want part of it read", mangled, dropped, err)
	}
}
