package retrieval_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/stratarag/strata/internal/testcorpus"
	"github.com/stratarag/strata/pipeline/pipelinetest"
	"github.com/stratarag/strata/retrieval"
	"github.com/stratarag/strata/retrieval/eval"
)

func testEngine(t testing.TB) *retrieval.Engine {
	f := pipelinetest.Ingested(t, 384)
	return &retrieval.Engine{Store: f.Store, Embedder: f.Embedder, Tokenizer: f.Tokenizer}
}

// TestGoldDocumentsInTopFive checks, per mode, that for most testdata questions a gold document is
// among the first five retrieved documents, and reports recall.
func TestGoldDocumentsInTopFive(t *testing.T) {
	engine := testEngine(t)
	questions, err := eval.ReadQuestions(testcorpus.Questions())
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range retrieval.Modes() {
		rep, err := eval.Run(context.Background(), engine, nil, questions, retrieval.DefaultOptions(mode))
		if err != nil {
			t.Fatal(err)
		}
		hits := 0
		for _, r := range rep.Results {
			top := r.Documents[:min(5, len(r.Documents))]
			if slices.ContainsFunc(r.Gold, func(g string) bool { return slices.Contains(top, g) }) {
				hits++
			} else {
				t.Logf("%s: %s: no gold document in top 5 %v (gold %v)", mode, r.ID, top, r.Gold)
			}
		}
		t.Logf("%s: gold in top 5 for %d/%d questions; recall %v", mode, hits, len(questions), rep.Recall)
		if hits*4 < len(questions)*3 {
			t.Errorf("%s: a gold document is in the top 5 for only %d of %d questions", mode, hits, len(questions))
		}
	}
}

func TestQueryRejectsBadInput(t *testing.T) {
	engine := testEngine(t)
	if _, err := engine.Query(context.Background(), "   ", retrieval.DefaultOptions(retrieval.ModeNaive)); err != retrieval.ErrEmptyQuery {
		t.Errorf("blank question: %v", err)
	}
}

type echoAnswerer struct {
	got   string
	calls int
	notes retrieval.Answer // the notes of every answer
}

func (a *echoAnswerer) Answer(_ context.Context, q, contextText string) (retrieval.Answer, error) {
	a.got = contextText
	a.calls++
	ans := a.notes
	ans.Text = "answer to " + q
	return ans, nil
}

func TestQueryAnswersWithContext(t *testing.T) {
	engine := testEngine(t)
	ans := &echoAnswerer{}
	engine.Answerer = ans
	res, err := engine.Query(context.Background(), "Who rescued the crew of the Seventh Lantern?", retrieval.DefaultOptions(retrieval.ModeLocal))
	if err != nil {
		t.Fatal(err)
	}
	if res.Answer == nil || *res.Answer != "answer to Who rescued the crew of the Seventh Lantern?" || ans.got != res.ContextText {
		t.Errorf("answer %v; answerer saw the context: %v", res.Answer, ans.got == res.ContextText)
	}
	if res.AnswerNotes == nil || *res.AnswerNotes != (retrieval.AnswerNotes{}) {
		t.Errorf("notes of a whole answer: %+v", res.AnswerNotes)
	}
	opt := retrieval.DefaultOptions(retrieval.ModeLocal)
	opt.ContextOnly = true
	res, err = engine.Query(context.Background(), "Who rescued the crew?", opt)
	if err != nil || res.Answer != nil || res.AnswerNotes != nil {
		t.Errorf("--context-only still answered: %v %+v %v", res.Answer, res.AnswerNotes, err)
	}
}

// TestQueryAnswerNotes: what the answerer says of its answer (cut at the token limit, made-up
// citations removed) reaches the result's notes, and their warnings say so.
func TestQueryAnswerNotes(t *testing.T) {
	engine := testEngine(t)
	tests := []struct {
		name     string
		answer   retrieval.Answer
		want     retrieval.AnswerNotes
		warnings []string // a phrase of each warning, in order
	}{
		{"whole", retrieval.Answer{}, retrieval.AnswerNotes{}, nil},
		{"truncated", retrieval.Answer{Truncated: true}, retrieval.AnswerNotes{Truncated: true}, []string{"token limit"}},
		{"citations removed", retrieval.Answer{CitationsRemoved: 2}, retrieval.AnswerNotes{CitationsRemoved: 2}, []string{"2 citation(s)"}},
		{"both", retrieval.Answer{Truncated: true, CitationsRemoved: 1}, retrieval.AnswerNotes{Truncated: true, CitationsRemoved: 1},
			[]string{"token limit", "1 citation(s)"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			engine.Answerer = &echoAnswerer{notes: tc.answer}
			defer func() { engine.Answerer = nil }()
			res, err := engine.Query(context.Background(), "Who rescued the crew?", retrieval.DefaultOptions(retrieval.ModeNaive))
			if err != nil {
				t.Fatal(err)
			}
			if res.AnswerNotes == nil || *res.AnswerNotes != tc.want {
				t.Fatalf("notes %+v, want %+v", res.AnswerNotes, tc.want)
			}
			got := res.AnswerNotes.Warnings()
			if len(got) != len(tc.warnings) {
				t.Fatalf("warnings %q, want %d", got, len(tc.warnings))
			}
			for i, phrase := range tc.warnings {
				if !strings.Contains(got[i], phrase) {
					t.Errorf("warning %q does not say %q", got[i], phrase)
				}
			}
		})
	}
}

// failingAnswerer fails as the answer package does when the API refuses the call.
type failingAnswerer struct{ err error }

func (a failingAnswerer) Answer(context.Context, string, string) (retrieval.Answer, error) {
	return retrieval.Answer{}, a.err
}

// TestQueryAnswerErrorSaysItOnce: a failed answer step is named once, in front of the cause.
func TestQueryAnswerErrorSaysItOnce(t *testing.T) {
	engine := testEngine(t)
	cause := errors.New("chat completion (answer, model m): status 400: bad request")
	engine.Answerer = failingAnswerer{cause}
	defer func() { engine.Answerer = nil }()
	_, err := engine.Query(context.Background(), "Who rescued the crew?", retrieval.DefaultOptions(retrieval.ModeNaive))
	if !errors.Is(err, cause) || err.Error() != "generate the answer: "+cause.Error() {
		t.Errorf("error %q", err)
	}
}

// TestHiAblationsKeepTheirLevels checks which context sections each hi mode fills.
func TestHiAblationsKeepTheirLevels(t *testing.T) {
	engine := testEngine(t)
	q := "Under which rector did the designer of the Kestrel Point Lighthouse study?"
	tests := []struct {
		mode                         retrieval.Mode
		communities, paths, entities bool
		sectionGlobal, sectionBridge string
	}{
		{retrieval.ModeHi, true, true, true, "-----Backgrounds-----", "-----Reasoning Path-----"},
		{retrieval.ModeHiLocal, false, false, true, "", ""},
		{retrieval.ModeHiGlobal, true, false, false, "-----Backgrounds-----", ""},
		{retrieval.ModeHiBridge, false, true, false, "", "-----Reasoning Path-----"},
		{retrieval.ModeHiNoBridge, true, false, true, "-----Backgrounds-----", ""},
	}
	for _, tc := range tests {
		opt := retrieval.DefaultOptions(tc.mode)
		opt.ContextOnly = true
		res, err := engine.Query(context.Background(), q, opt)
		if err != nil {
			t.Fatal(err)
		}
		c := res.Context
		if (len(c.Communities) > 0) != tc.communities || (len(c.Paths) > 0) != tc.paths || (len(c.Entities) > 0) != tc.entities || len(c.Chunks) == 0 {
			t.Errorf("%s: %d communities, %d paths, %d entities, %d chunks", tc.mode, len(c.Communities), len(c.Paths), len(c.Entities), len(c.Chunks))
		}
		for _, section := range []string{"-----Backgrounds-----", "-----Reasoning Path-----"} {
			want := section == tc.sectionGlobal || section == tc.sectionBridge
			if got := strings.Contains(res.ContextText, section); got != want {
				t.Errorf("%s: section %s present %v, want %v", tc.mode, section, got, want)
			}
		}
	}
	// The bridge joins the lighthouse's designer to her teacher's university.
	opt := retrieval.DefaultOptions(retrieval.ModeHiBridge)
	opt.ContextOnly = true
	res, err := engine.Query(context.Background(), q, opt)
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]bool{}
	for _, p := range res.Context.Paths {
		found[p.Source+" -- "+p.Target] = true
		found[p.Target+" -- "+p.Source] = true
	}
	for _, want := range []string{"Kestrel Point Lighthouse -- Maren Quill", "Hollin Reach University -- Osric Daventh"} {
		if !found[want] {
			t.Errorf("bridge paths lack %q: %v", want, res.Context.Paths)
		}
	}
}

// TestHiAblationsChangeChunks: each ablation drops the evidence channels of the levels it drops,
// so its ranked documents differ from hi's on some testdata question.
func TestHiAblationsChangeChunks(t *testing.T) {
	engine := testEngine(t)
	questions, err := eval.ReadQuestions(testcorpus.Questions())
	if err != nil {
		t.Fatal(err)
	}
	run := func(m retrieval.Mode) eval.Report {
		rep, err := eval.Run(context.Background(), engine, nil, questions, retrieval.DefaultOptions(m))
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	hi := run(retrieval.ModeHi)
	for _, m := range []retrieval.Mode{retrieval.ModeHiLocal, retrieval.ModeHiGlobal, retrieval.ModeHiBridge, retrieval.ModeHiNoBridge} {
		rep := run(m)
		differ := 0
		for i, r := range rep.Results {
			if !slices.Equal(r.Documents, hi.Results[i].Documents) {
				differ++
			}
		}
		t.Logf("%s: ranked documents differ from hi on %d of %d questions", m, differ, len(questions))
		if differ == 0 {
			t.Errorf("%s ranks the same documents as hi on every question", m)
		}
	}
}

// TestHiBudget checks hi's context layout on the testdata questions: the budget object lists
// the sections of the context text with their levels and adds up to its token count (an upper
// bound within 2 %: the chunks' lines are counted from stored counts, with a token to spare), the graph
// sections together take at most a third of the sources' tokens (plus their headings), and the
// chunks after the first half of top-k are excerpts.
func TestHiBudget(t *testing.T) {
	engine := testEngine(t)
	questions, err := eval.ReadQuestions(testcorpus.Questions())
	if err != nil {
		t.Fatal(err)
	}
	levels := map[string]string{"Backgrounds": "global", "Reasoning Path": "bridge", "Detail Entity Information": "local", "Source Documents": "sources"}
	for _, q := range questions {
		opt := retrieval.DefaultOptions(retrieval.ModeHi)
		opt.ContextOnly = true
		res, err := engine.Query(context.Background(), q.Question, opt)
		if err != nil {
			t.Fatal(err)
		}
		var headings []string
		for _, line := range strings.Split(res.ContextText, "\n") {
			if strings.HasPrefix(line, "-----") {
				headings = append(headings, strings.Trim(line, "-"))
			}
		}
		sum, graph, sources := 0, 0, 0
		var got []string
		for _, s := range res.Budget.Sections {
			got = append(got, s.Section)
			if s.Level != levels[s.Section] {
				t.Errorf("%s: section %s has level %q", q.ID, s.Section, s.Level)
			}
			if s.Tokens > s.Budget+20 {
				t.Errorf("%s: section %s spent %d tokens of %d", q.ID, s.Section, s.Tokens, s.Budget)
			}
			sum += s.Tokens
			if s.Level == "sources" {
				sources = s.Tokens
			} else {
				graph += s.Tokens - 10 // a heading and its line break
			}
		}
		if !slices.Equal(got, headings) {
			t.Errorf("%s: budget sections %v, context headings %v", q.ID, got, headings)
		}
		if n := engine.Tokenizer.Count(res.ContextText); sum < n-len(got)*2 || sum > n+n/50 {
			t.Errorf("%s: sections add up to %d tokens, the context text has %d", q.ID, sum, n)
		}
		if 3*graph > sources {
			t.Errorf("%s: graph sections %d tokens against %d of sources", q.ID, graph, sources)
		}
		for i, c := range res.Context.Chunks {
			if c.Excerpt && i < opt.TopK/2 {
				t.Errorf("%s: chunk %d of %d is an excerpt", q.ID, i, len(res.Context.Chunks))
			}
		}
	}
}
