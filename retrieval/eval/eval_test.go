package eval

import (
	"context"
	"errors"
	"maps"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stratarag/strata/retrieval"
)

func TestRecall(t *testing.T) {
	tests := []struct {
		gold, ranked []string
		k            int
		want         float64
	}{
		{[]string{"a", "b"}, []string{"a", "x", "b"}, 2, 0.5},
		{[]string{"a", "b"}, []string{"a", "x", "b"}, 3, 1},
		{[]string{"a"}, nil, 5, 0},
		{nil, []string{"a"}, 5, 0},
	}
	for _, tc := range tests {
		if got := Recall(tc.gold, tc.ranked, tc.k); got != tc.want {
			t.Errorf("Recall(%v, %v, %d) = %v, want %v", tc.gold, tc.ranked, tc.k, got, tc.want)
		}
	}
}

type fixedQuerier map[string][]string // question → ranked document ids of its chunks

func (f fixedQuerier) Query(_ context.Context, q string, opt retrieval.Options) (*retrieval.Result, error) {
	res := &retrieval.Result{Query: q, Mode: opt.Mode}
	for i, d := range f[q] {
		res.Context.Chunks = append(res.Context.Chunks, retrieval.ChunkItem{ID: string(rune('a' + i)), DocumentID: d})
	}
	res.ContextText = strings.Join(f[q], " ")
	// One section of a token per document, and a second one for questions of more than two.
	res.Budget.Sections = []retrieval.SectionBudget{{Section: "Sources", Tokens: len(f[q])}}
	if len(f[q]) > 2 {
		res.Budget.Sections = append(res.Budget.Sections, retrieval.SectionBudget{Section: "Entities", Tokens: 3})
	}
	return res, nil
}

// TestRunMeanSectionTokens: each section's tokens are averaged over all questions, a question
// without the section counting 0.
func TestRunMeanSectionTokens(t *testing.T) {
	q := fixedQuerier{"one": {"d1", "d2"}, "two": {"d1", "d2", "d3", "d4", "d5", "d6"}}
	questions := []Question{{ID: "1", Question: "one", Gold: []string{"d1"}}, {ID: "2", Question: "two", Gold: []string{"d1"}}}
	rep, err := Run(context.Background(), q, nil, questions, retrieval.DefaultOptions(retrieval.ModeHi))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"Sources": 4, "Entities": 1.5}
	if !maps.Equal(rep.MeanSectionTokens, want) {
		t.Errorf("mean section tokens %v, want %v", rep.MeanSectionTokens, want)
	}
}

// words counts the words of a text as its tokens.
type words struct{}

func (words) Count(s string) int { return len(strings.Fields(s)) }

// TestRunCountsContextTokens: with a counter, each question's context size and their mean are
// reported; without one, zero.
func TestRunCountsContextTokens(t *testing.T) {
	q := fixedQuerier{"one": {"d1", "d2"}, "two": {"d1", "d2", "d3", "d4", "d5", "d6"}}
	questions := []Question{{ID: "1", Question: "one", Gold: []string{"d1"}}, {ID: "2", Question: "two", Gold: []string{"d1"}}}
	opt := retrieval.DefaultOptions(retrieval.ModeNaive)
	rep, err := Run(context.Background(), q, words{}, questions, opt)
	if err != nil {
		t.Fatal(err)
	}
	if rep.MeanContextTokens != 4 || rep.Results[0].ContextTokens != 2 || rep.Results[1].ContextTokens != 6 {
		t.Errorf("mean %v, per question %d and %d; want 4, 2 and 6", rep.MeanContextTokens, rep.Results[0].ContextTokens, rep.Results[1].ContextTokens)
	}
	if rep, err = Run(context.Background(), q, nil, questions, opt); err != nil || rep.MeanContextTokens != 0 {
		t.Errorf("without a counter: mean %v, %v; want 0", rep.MeanContextTokens, err)
	}
}

func TestRunAveragesAndDeduplicatesDocuments(t *testing.T) {
	q := fixedQuerier{
		"one": {"d1", "d1", "d2", "d3"}, // two chunks of d1 count as one document
		"two": {"x", "y", "z", "w", "d9"},
	}
	rep, err := Run(context.Background(), q, nil, []Question{
		{ID: "1", Question: "one", Gold: []string{"d2", "d3"}},
		{ID: "2", Question: "two", Gold: []string{"d9"}},
	}, retrieval.DefaultOptions(retrieval.ModeNaive))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"recall@2": 0.25, "recall@5": 1, "recall@10": 1}
	for k, w := range want {
		if math.Abs(rep.Recall[k]-w) > 1e-9 {
			t.Errorf("%s = %v, want %v", k, rep.Recall[k], w)
		}
	}
	if got := rep.Results[0].Documents; strings.Join(got, ",") != "d1,d2,d3" {
		t.Errorf("documents = %v", got)
	}
}

func TestReadQuestionsErrorsNameTheLine(t *testing.T) {
	dir := t.TempDir()
	tests := []struct{ body, want string }{
		{`{"id":"q1","question":"?","gold":["a"]}` + "\nnot json\n", ":2: not a JSON object"},
		{`{"id":"q1","question":"?"}`, `:1: missing "gold"`},
		{`{"question":"?","gold":["a"]}`, `:1: missing "id"`},
		{"\n\n", "no questions"},
	}
	for i, tc := range tests {
		p := filepath.Join(dir, "q"+string(rune('0'+i))+".jsonl")
		if err := os.WriteFile(p, []byte(tc.body), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := ReadQuestions(p)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("body %q: err = %v, want %q", tc.body, err, tc.want)
		}
	}
	qs, err := ReadQuestions(filepath.Join("..", "..", "testdata", "questions.jsonl"))
	if err != nil || len(qs) < 10 {
		t.Fatalf("testdata questions: %d, %v", len(qs), err)
	}
}

// TestReadFor: what a file must hold depends on the evaluation; "query" stands for "question",
// and without gold an id is made from the line.
func TestReadFor(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	published := write("published.jsonl", `{"query": "Who?", "answer": "Someone, at length."}`+"\n")
	qs, err := ReadFor(published, 0)
	if err != nil || len(qs) != 1 || qs[0].ID != "#1" || qs[0].Question != "Who?" {
		t.Fatalf("%+v, %v", qs, err)
	}
	if _, err := ReadFor(published, NeedGold); err == nil || !strings.Contains(err.Error(), `missing "id"`) {
		t.Errorf("recall without ids: %v", err)
	}
	noAnswer := write("noanswer.jsonl", `{"id": "q1", "question": "Who?", "gold": ["a"]}`+"\n")
	if _, err := ReadFor(noAnswer, NeedAnswer); !errors.Is(err, ErrNoAnswer) || !strings.Contains(err.Error(), "noanswer.jsonl:1") {
		t.Errorf("no answer: %v", err)
	}
	aliases := write("aliases.jsonl", `{"id": "q1", "question": "Who?", "answer": ["Ilsa Marrow", "Marrow"]}`+"\n")
	if qs, err := ReadFor(aliases, NeedAnswer); err != nil || len(qs[0].Answer) != 2 {
		t.Errorf("aliases: %+v, %v", qs, err)
	}
	bad := write("bad.jsonl", `{"id": "q1", "question": "Who?", "answer": 7}`+"\n")
	if _, err := ReadFor(bad, NeedAnswer); err == nil || !strings.Contains(err.Error(), "bad.jsonl:1") {
		t.Errorf("a number as answer: %v", err)
	}
}
