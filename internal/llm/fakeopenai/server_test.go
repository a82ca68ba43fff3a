package fakeopenai

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stratarag/strata/internal/llmtask/summaryentities"

	"github.com/stratarag/strata/internal/llmtask/answer"
	"github.com/stratarag/strata/internal/llmtask/extraction"
	"github.com/stratarag/strata/internal/llmtask/keypoints"
	"github.com/stratarag/strata/internal/llmtask/pairjudge"
	"github.com/stratarag/strata/internal/llmtask/report"

	"github.com/stratarag/strata/internal/llmtask/summarize"

	"github.com/stratarag/strata/internal/llmtask/archsummary"

	"github.com/stratarag/strata/internal/llmtask/summaryrelation"

	"github.com/stratarag/strata/prompts"
)

const passage = `Ilsa Marrow founded the Saltmere Cartographers' Guild in 1102, in a loft above the fish market of Saltmere.
In 1112 the guild hired Corvin Hale as its chief surveyor. Ilsa Marrow led the guild until 1124.
The guild stopped selling charts to Port Avel during the Salt Tariff Dispute, and Brenna sailed anyway.`

func newServer(t *testing.T, opts Options) *Server {
	t.Helper()
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

type reply struct {
	status  int
	header  http.Header
	content string
	finish  string
	usage   usage
}

func post(t *testing.T, h http.Handler, path string, body any) reply {
	t.Helper()
	b, _ := json.Marshal(body)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, path, bytes.NewReader(b)))
	r := reply{status: rec.Code, header: rec.Header()}
	var out struct {
		Choices []struct {
			Message      struct{ Content string }
			FinishReason string `json:"finish_reason"`
		}
		Usage usage
	}
	json.Unmarshal(rec.Body.Bytes(), &out)
	if len(out.Choices) > 0 {
		r.content, r.finish = out.Choices[0].Message.Content, out.Choices[0].FinishReason
	}
	r.usage = out.Usage
	return r
}

func chatBody(p prompts.Prompt, extra ...map[string]any) map[string]any {
	msgs := []map[string]any{{"role": "system", "content": p.System}, {"role": "user", "content": p.User}}
	body := map[string]any{"model": "fake", "messages": msgs}
	for _, e := range extra {
		for k, v := range e {
			body[k] = v
		}
	}
	return body
}

func TestExtractionAnswers(t *testing.T) {
	s := newServer(t, Options{})
	in := extraction.Input{Text: passage, EntityTypes: []string{"person", "organization", "location", "event"}}
	comb, _ := extraction.Combined(in)
	r := post(t, s, "/v1/chat/completions", chatBody(comb))
	recs := prompts.ParseRecords(r.content)
	if r.status != 200 || recs.Dropped != 0 || !recs.Complete {
		t.Fatalf("combined: status %d, %+v\n%s", r.status, recs, r.content)
	}
	names := map[string]string{}
	for _, e := range recs.Entities {
		names[e.Name] = e.Type
	}
	for name, typ := range map[string]string{
		"Ilsa Marrow": "person", "Saltmere Cartographers' Guild": "organization", "Corvin Hale": "person",
		"Port Avel": "location", "Salt Tariff Dispute": "event",
	} {
		if names[name] != typ {
			t.Errorf("entity %q: type %q, want %q (all: %v)", name, names[name], typ, names)
		}
	}
	if _, ok := names["Brenna"]; ok {
		t.Error("single-mention name found by the first pass; gleaning has nothing to find")
	}
	if len(recs.Relationships) == 0 || r.usage.PromptTokens == 0 || r.usage.CompletionTokens == 0 {
		t.Errorf("relationships %d, usage %+v", len(recs.Relationships), r.usage)
	}

	// Two-pass gives the same graph.
	ent, _ := extraction.Entities(in)
	er := prompts.ParseRecords(post(t, s, "/v1/chat/completions", chatBody(ent)).content)
	rel, _ := extraction.Relations(in, er.Entities)
	rr := prompts.ParseRecords(post(t, s, "/v1/chat/completions", chatBody(rel)).content)
	if len(er.Entities) != len(recs.Entities) || len(rr.Relationships) != len(recs.Relationships) || len(er.Relationships) != 0 {
		t.Errorf("two-pass: %d entities %d relations, combined: %d %d", len(er.Entities), len(rr.Relationships), len(recs.Entities), len(recs.Relationships))
	}

	// Gleaning finds the single-mention name.
	glean, _ := extraction.Glean(extraction.KindCombined)
	body := chatBody(comb)
	body["messages"] = append(body["messages"].([]map[string]any),
		map[string]any{"role": "assistant", "content": r.content}, map[string]any{"role": "user", "content": glean})
	g := prompts.ParseRecords(post(t, s, "/v1/chat/completions", body).content)
	if len(g.Entities) != 2 || g.Entities[1].Name != "Brenna" || len(g.Relationships) == 0 {
		t.Errorf("glean: %+v", g)
	}
	if c := s.Counts(); c.Chat != 4 || c.ByTask["glean"] != 1 || c.ByTask[extraction.TaskCombined] != 1 {
		t.Errorf("counts %+v", c)
	}
}

func TestMalformedAnswersBreakCountedRecords(t *testing.T) {
	s := newServer(t, Options{MalformedRate: 1})
	comb, _ := extraction.Combined(extraction.Input{Text: passage, EntityTypes: []string{"person"}})
	r := post(t, s, "/v1/chat/completions", chatBody(comb))
	recs := prompts.ParseRecords(r.content)
	c := s.Counts()
	if c.Malformed != 1 || c.BrokenRecords == 0 || recs.Dropped != c.BrokenRecords {
		t.Errorf("broken %d, parser dropped %d\n%s", c.BrokenRecords, recs.Dropped, r.content)
	}
	if len(recs.Entities) == 0 {
		t.Error("nothing survived the mangling")
	}
}

func TestUnreadableAnswersHoldNothing(t *testing.T) {
	s := newServer(t, Options{UnreadableRate: 1, MalformedRate: 1})
	comb, _ := extraction.Combined(extraction.Input{Text: passage, EntityTypes: []string{"person"}})
	r := post(t, s, "/v1/chat/completions", chatBody(comb))
	recs := prompts.ParseRecords(r.content)
	c := s.Counts()
	if c.Unreadable != 1 || c.Malformed != 0 || r.finish != "length" || len(recs.Entities)+len(recs.Relationships) != 0 {
		t.Errorf("counts %+v, finish %q, records %+v\n%s", c, r.finish, recs, r.content)
	}
	if got := prompts.CleanAnswer(r.content); got != "" {
		t.Errorf("reasoning left text %q", got)
	}
}

func TestMaxTokensTruncates(t *testing.T) {
	s := newServer(t, Options{})
	comb, _ := extraction.Combined(extraction.Input{Text: passage, EntityTypes: []string{"person"}})
	r := post(t, s, "/v1/chat/completions", chatBody(comb, map[string]any{"max_tokens": 20}))
	if r.finish != "length" || r.usage.CompletionTokens != 20 {
		t.Errorf("finish %q, completion tokens %d", r.finish, r.usage.CompletionTokens)
	}
}

func TestFaultsAreDeterministicPerAttempt(t *testing.T) {
	run := func() []int {
		s := newServer(t, Options{Seed: 7, RateLimitRate: 0.3, ServerErrorRate: 0.2, RetryAfter: 1500 * time.Millisecond})
		var codes []int
		for i := 0; i < 20; i++ {
			r := post(t, s, "/v1/embeddings", map[string]any{"model": "e", "input": []string{"same text"}})
			codes = append(codes, r.status)
			if r.status == 429 && (r.header.Get("Retry-After-Ms") != "1500" || r.header.Get("Retry-After") != "2") {
				t.Errorf("429 headers: %v", r.header)
			}
		}
		return codes
	}
	a, b := run(), run()
	seen := map[int]int{}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("runs differ: %v vs %v", a, b)
		}
		seen[a[i]]++
	}
	if seen[200] == 0 || seen[429] == 0 || seen[500] == 0 {
		t.Errorf("status mix %v", seen)
	}
}

func TestTimeoutFaultHangsUntilClientGivesUp(t *testing.T) {
	srv, _, err := Start(Options{TimeoutRate: 1, Hang: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	c := &http.Client{Timeout: 50 * time.Millisecond}
	_, err = c.Post(srv.URL+"/v1/embeddings", "application/json", strings.NewReader(`{"input":"x"}`))
	if err == nil {
		t.Fatal("want a client time-out")
	}
}

func TestOtherTasks(t *testing.T) {
	s := newServer(t, Options{})
	sum, _ := summarize.Prompt("Ilsa Marrow", []string{"Ilsa Marrow founded the guild. She was strict.", "Ilsa Marrow founded the guild. Again.", "She led it until 1124."}, 12)
	if got := post(t, s, "/v1/chat/completions", chatBody(sum)).content; !strings.HasPrefix(got, "Ilsa Marrow founded the guild. Ilsa Marrow: ") && len(strings.Fields(got)) > 13 {
		t.Errorf("summary %q", got)
	}
	ans, _ := answer.Prompt("Who founded the guild?", "[doc:guild] Ilsa Marrow founded the guild in 1102.\n[doc:port] Port Avel is a port.")
	if got := post(t, s, "/v1/chat/completions", chatBody(ans)).content; !strings.Contains(got, "[doc:guild]") {
		t.Errorf("answer %q", got)
	}
	rep, _ := report.Prompt("Ilsa Marrow founded the Saltmere Guild. Corvin Hale surveyed for it.", 0, 0)
	r, _, err := prompts.ParseReport(post(t, s, "/v1/chat/completions", chatBody(rep)).content)
	if err != nil || r.Title != "Ilsa Marrow and Saltmere Guild" || len(r.Findings) == 0 {
		t.Errorf("report %+v %v", r, err)
	}
	kp, _ := keypoints.Prompt("Who founded the guild?", "[report:0-1] The guild was founded by Ilsa Marrow.\n[report:0-2] Ships.")
	pts, _, err := prompts.ParsePoints(post(t, s, "/v1/chat/completions", chatBody(kp)).content)
	if err != nil || len(pts) != 1 || pts[0].Score <= 0 {
		t.Errorf("points %+v %v", pts, err)
	}
	se, _ := summaryentities.Prompt("- Ilsa Marrow: founder\n- Corvin Hale: surveyor", nil)
	recs := prompts.ParseRecords(post(t, s, "/v1/chat/completions", chatBody(se)).content)
	if len(recs.Entities) != 1 || len(recs.Relationships) != 0 {
		t.Errorf("summary entities %+v, want one entity and no member links (the prompt asks for none)", recs)
	}
	sr, _ := summaryrelation.Prompt("Guild founders", "Who built the guild.", "Harbour trade", "Ships and tariffs.", 7,
		[]string{"Ilsa Marrow taxed the ships. Again.", "Corvin Hale surveyed the harbour."})
	if got := post(t, s, "/v1/chat/completions", chatBody(sr)).content; got != "Guild founders is linked to Harbour trade. For instance: Ilsa Marrow taxed the ships." {
		t.Errorf("summary relation %q", got)
	}
}

func TestEmbeddings(t *testing.T) {
	s := newServer(t, Options{EmbeddingDims: 16})
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/v1/embeddings", strings.NewReader(`{"model":"e","input":["a b","c d"],"dimensions":8}`)))
	var out struct {
		Data []struct {
			Index     int
			Embedding []float32
		}
		Usage usage
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Data) != 2 || len(out.Data[1].Embedding) != 8 || out.Data[1].Index != 1 || out.Usage.PromptTokens == 0 {
		t.Errorf("embeddings %+v", out)
	}
}

// TestCorpusSmoke runs the combined prompt over a project corpus file, when present.
func TestCorpusSmoke(t *testing.T) {
	b, err := os.ReadFile("../../../testdata/corpus/harbor-guild.md")
	if err != nil {
		t.Skip("corpus not available")
	}
	s := newServer(t, Options{})
	comb, _ := extraction.Combined(extraction.Input{Text: string(b), EntityTypes: []string{"person"}})
	recs := prompts.ParseRecords(post(t, s, "/v1/chat/completions", chatBody(comb)).content)
	if len(recs.Entities) < 5 || len(recs.Relationships) < 5 || recs.Dropped != 0 {
		t.Errorf("corpus: %d entities, %d relations, %d dropped", len(recs.Entities), len(recs.Relationships), recs.Dropped)
	}
	for _, e := range recs.Entities {
		t.Logf("%s (%s)", e.Name, e.Type)
	}
}

// TestTaskNames: the fake recognizes the tasks of internal/llmtask's packages by the names they
// put in their prompts.
func TestTaskNames(t *testing.T) {
	for _, tc := range []struct{ fakeTask, fakeLabel, task, label string }{
		{summaryRelationTask, summaryRelationLabel, summaryrelation.Task, summaryrelation.Label},
		{archSummaryTask, archSummaryLabel, archsummary.Task, archsummary.Label},
		{summarizeTask, summarizeLabel, summarize.Task, summarize.Label},
		{reportTask, reportLabel, report.Task, report.Label},
		{summaryEntitiesTask, summaryEntitiesLabel, summaryentities.Task, summaryentities.Label},
		{keyPointsTask, keyPointsLabel, keypoints.Task, keypoints.Label},
		{extractCombinedTask, extractLabel, extraction.TaskCombined, extraction.Label},
		{extractEntitiesTask, extractLabel, extraction.TaskEntities, extraction.Label},
		{extractRelationsTask, extractLabel, extraction.TaskRelations, extraction.Label},
		{extractFollowUp, extractLabel, extraction.FollowUp, extraction.Label},
		{answerTask, answerLabel, answer.Task, answer.Label},
		{judgeTask, judgeLabelA, pairjudge.Task, pairjudge.LabelA},
		{judgeTask, judgeLabelB, pairjudge.Task, pairjudge.LabelB},
		{judgeTask, judgeQuestionLabel, pairjudge.Task, pairjudge.QuestionLabel},
	} {
		if tc.fakeTask != tc.task || tc.fakeLabel != tc.label {
			t.Errorf("the fake reads task %q fenced %q; the task writes %q fenced %q", tc.fakeTask, tc.fakeLabel, tc.task, tc.label)
		}
	}
}
