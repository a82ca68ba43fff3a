package retrieval_test

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stratarag/strata/internal/embedding"
	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/llm"
	"github.com/stratarag/strata/internal/llm/fakeopenai"
	"github.com/stratarag/strata/internal/llmtask/keypoints"
	"github.com/stratarag/strata/internal/tokenizer"
	"github.com/stratarag/strata/prompts"
	"github.com/stratarag/strata/retrieval"
	"github.com/stratarag/strata/retrieval/answer"
)

var (
	reportTagRe  = regexp.MustCompile(`(?m)^\[report:([^\]]+)\]`)
	importanceRe = regexp.MustCompile(`(?m)^\(importance ([\d.]+)\)`)
)

// reportIDs returns the ids of the reports in a map batch, in order, once each.
func reportIDs(reportsText string) []string {
	var ids []string
	for _, m := range reportTagRe.FindAllStringSubmatch(reportsText, -1) {
		if !slices.Contains(ids, m[1]) {
			ids = append(ids, m[1])
		}
	}
	return ids
}

// checkGlobalContext checks what every global result must satisfy: the one section, the JSON lists
// (empty, not null, for entities and paths; chunks behind the points, never in the text, at most
// top-k of them), communities that are exactly the ones cited in the text, and the token budget.
func checkGlobalContext(t *testing.T, tok *tokenizer.Tokenizer, res *retrieval.Result, budget int) {
	t.Helper()
	c := res.Context
	if c.Entities == nil || c.Paths == nil || c.Chunks == nil || len(c.Entities)+len(c.Paths) > 0 {
		t.Errorf("entities %v, paths %v, chunks %v: want empty lists and a chunk list", c.Entities, c.Paths, c.Chunks)
	}
	if len(c.Chunks) > retrieval.DefaultOptions(retrieval.ModeGlobal).TopK {
		t.Errorf("%d chunks, want at most top-k", len(c.Chunks))
	}
	for _, ch := range c.Chunks {
		if strings.Contains(res.ContextText, ch.Text) {
			t.Errorf("chunk %s is in the context text, which holds report points only", ch.ID)
		}
	}
	js, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"entities":[]`, `"paths":[]`, `"chunks":[`} {
		if !strings.Contains(string(js), want) {
			t.Errorf("JSON lacks %s: %s", want, js)
		}
	}
	if len(c.Communities) == 0 {
		t.Fatalf("no communities; context %q", res.ContextText)
	}
	if !strings.HasPrefix(res.ContextText, "-----Analyst Reports-----\n") {
		t.Errorf("context does not start with the Analyst Reports section: %q", res.ContextText)
	}
	// The communities are those cited in the text, in order of first citation.
	var cited []string
	for _, m := range regexp.MustCompile(`report:([^\]\s,;]+)`).FindAllStringSubmatch(res.ContextText, -1) {
		if !slices.Contains(cited, m[1]) {
			cited = append(cited, m[1])
		}
	}
	var ids []string
	for _, cm := range c.Communities {
		ids = append(ids, cm.ID)
		if cm.Title == "" || cm.Summary == "" || cm.Rating <= 0 {
			t.Errorf("community %+v lacks its report fields", cm)
		}
	}
	if !slices.Equal(ids, cited) {
		t.Errorf("communities %v, cited in the text %v", ids, cited)
	}
	// The section budget covers the points; the heading adds a few tokens.
	if n := tok.Count(res.ContextText); n > budget+10 {
		t.Errorf("context text has %d tokens, budget %d", n, budget)
	}
	// Points are ranked by importance.
	var scores []float64
	for _, m := range importanceRe.FindAllStringSubmatch(res.ContextText, -1) {
		s, _ := strconv.ParseFloat(m[1], 64)
		scores = append(scores, s)
	}
	if len(scores) == 0 || !slices.IsSortedFunc(scores, func(a, b float64) int { return cmp.Compare(b, a) }) {
		t.Errorf("importance not in descending order: %v", scores)
	}
}

// TestGlobalOffline checks global mode without a model: reports scored by similarity to the
// question, the community asked about first, all within the budget.
func TestGlobalOffline(t *testing.T) {
	engine := testEngine(t)
	tests := []struct {
		question  string
		budget    int    // 0: the default
		wantFirst string // a word of the first community's title
	}{
		{"Who commissioned the Kestrel Point Lighthouse?", 0, "Kestrel Point Lighthouse"},
		{"What did Maren Quill add to the Marrow Astrolabe?", 0, "Maren Quill"},
		{"Who founded the Saltmere Cartographers' Guild?", 0, "Saltmere Cartographers' Guild"},
		{"How did the Ashfever Plague reach the Corrin Archipelago?", 0, "Corrin Archipelago"},
		{"Who commissioned the Kestrel Point Lighthouse?", 120, "Kestrel Point Lighthouse"},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%s/%d", tc.wantFirst, tc.budget), func(t *testing.T) {
			res, err := engine.Query(context.Background(), tc.question, globalOptions(tc.budget))
			if err != nil {
				t.Fatal(err)
			}
			budget := globalOptions(tc.budget).MaxContextTokens
			checkGlobalContext(t, engine.Tokenizer, res, budget)
			if len(res.Context.Chunks) == 0 {
				t.Error("no chunks behind the cited communities")
			}
			c := res.Context.Communities
			if !strings.Contains(c[0].Title, tc.wantFirst) {
				t.Errorf("first community %q, want one about %q (all: %v)", c[0].Title, tc.wantFirst, titles(c))
			}
			for _, cm := range c {
				if cm.Level != 1 {
					t.Errorf("community %s of level %d, want the finest level 1", cm.ID, cm.Level)
				}
			}
			if tc.budget > 0 && len(c) != 1 {
				t.Errorf("%d tokens held %d communities, want the first only: %q", tc.budget, len(c), res.ContextText)
			}
			if _, ok := res.TimingsMS["map"]; !ok {
				t.Errorf("no map timing: %v", res.TimingsMS)
			}
		})
	}
}

// globalOptions returns global mode's defaults with a context budget of budget tokens (0: the
// default).
func globalOptions(budget int) retrieval.Options {
	opt := retrieval.DefaultOptions(retrieval.ModeGlobal)
	if budget != 0 {
		opt.MaxContextTokens = budget
	}
	return opt
}

func titles(cs []retrieval.CommunityItem) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.ID+" "+c.Title)
	}
	return out
}

// stubMapper answers every batch deterministically from the report ids in it, and counts calls
// and calls in flight.
type stubMapper struct {
	points   func(ids []string) ([]prompts.Point, error)
	delay    time.Duration
	calls    atomic.Int32
	inFlight atomic.Int32
	maxSeen  atomic.Int32

	mu   sync.Mutex
	seen [][]string // report ids per call
}

func (m *stubMapper) KeyPoints(ctx context.Context, question, reportsText string) ([]prompts.Point, error) {
	m.calls.Add(1)
	n := m.inFlight.Add(1)
	defer m.inFlight.Add(-1)
	for {
		old := m.maxSeen.Load()
		if n <= old || m.maxSeen.CompareAndSwap(old, n) {
			break
		}
	}
	if question == "" || reportsText == "" {
		return nil, errors.New("empty question or reports")
	}
	ids := reportIDs(reportsText)
	m.mu.Lock()
	m.seen = append(m.seen, ids)
	m.mu.Unlock()
	select {
	case <-time.After(m.delay):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return m.points(ids)
}

// communityNumber is the n of community id "level-n".
func communityNumber(id string) int {
	n, _ := strconv.Atoi(id[strings.IndexByte(id, '-')+1:])
	return n
}

// scoredPoints gives every report one point citing it, scored 10×its number (so community 0 gets
// 0 and is dropped), plus one uncited point per batch scored 5, and one citing a made-up report.
func scoredPoints(ids []string) ([]prompts.Point, error) {
	var pts []prompts.Point
	for _, id := range ids {
		pts = append(pts, prompts.Point{Description: fmt.Sprintf("Point of [report:%s].", id), Score: float64(10 * communityNumber(id))})
	}
	pts = append(pts,
		prompts.Point{Description: "A point citing no report " + strings.Join(ids, "+"), Score: 5},
		prompts.Point{Description: "Made up [report:9-99]", Score: 0.5})
	return pts, nil
}

// TestGlobalMapStep checks the map and reduce steps with a stub Mapper: every report mapped once,
// within the concurrency bound; zero-scored points dropped; points ranked by score; source
// communities carried into the context.
func TestGlobalMapStep(t *testing.T) {
	engine := testEngine(t)
	q := "What happened in the islands?"
	tests := []struct {
		name        string
		budget      int
		wantBatches func(n int) bool
	}{
		{"one batch", 0, func(n int) bool { return n == 1 }},
		{"a batch per report or two", 150, func(n int) bool { return n >= 5 }},
	}
	// The communities of level 1, as the test corpus makes them: 1-0 … 1-<n-1>.
	level1, err := engine.Store.CommunitiesByLevel(context.Background(), 1)
	if err != nil || len(level1) < 5 {
		t.Fatalf("level 1: %d communities, %v", len(level1), err)
	}
	n := len(level1)
	var wantMapped, wantIDs []string // each of level 1; by score, 1-<n-1> first
	for i := range n {
		wantMapped = append(wantMapped, fmt.Sprintf("1-%d", i))
		wantIDs = append(wantIDs, fmt.Sprintf("1-%d", n-1-i))
	}
	slices.Sort(wantMapped)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := &stubMapper{points: scoredPoints, delay: 20 * time.Millisecond}
			engine.Mapper = m
			defer func() { engine.Mapper = nil }()
			opt := globalOptions(tc.budget)
			opt.ContextOnly = true
			res, err := engine.Query(context.Background(), q, opt)
			if err != nil {
				t.Fatal(err)
			}
			budget := globalOptions(tc.budget).MaxContextTokens
			if !tc.wantBatches(int(m.calls.Load())) {
				t.Errorf("%d map calls", m.calls.Load())
			}
			if got := m.maxSeen.Load(); got > 4 || (m.calls.Load() >= 4 && got < 2) {
				t.Errorf("%d map calls in flight at most, want 2 to 4", got)
			}
			var all []string
			for _, ids := range m.seen {
				all = append(all, ids...)
			}
			slices.Sort(all)
			if !slices.Equal(all, wantMapped) {
				t.Errorf("reports mapped %v, want each of level 1 once: %v", all, wantMapped)
			}
			checkGlobalContext(t, engine.Tokenizer, res, budget)
			if strings.Contains(res.ContextText, "Point of [report:1-0]") {
				t.Errorf("the zero-scored point of 1-0 is in the context: %q", res.ContextText)
			}
			if strings.Contains(res.ContextText, "9-99") {
				t.Errorf("a made-up citation is in the context: %q", res.ContextText)
			}
			if tc.budget == 0 {
				// Cited points first, by score: 1-<n-1> (10(n-1)) … 1-1 (10); then the uncited batch point
				// (5), which names all ten, so 1-0 comes last; then the made-up citation (0.5),
				// removed and attributed to the batch.
				var ids []string
				for _, c := range res.Context.Communities {
					ids = append(ids, c.ID)
				}
				if !slices.Equal(ids, wantIDs) {
					t.Errorf("communities %v, want %v", ids, wantIDs)
				}
				lines := strings.Split(res.ContextText, "\n")
				if len(lines) != 1+(n-1)+2 || !strings.HasPrefix(lines[1], fmt.Sprintf("(importance %d) Point of [report:%s].", 10*(n-1), wantIDs[0])) ||
					!strings.HasPrefix(lines[n], "(importance 5) A point citing no report") ||
					!strings.HasPrefix(lines[n+1], "(importance 0.5) Made up [report:") {
					t.Errorf("context text:\n%s", res.ContextText)
				}
			} else {
				// Small budget: the best points only, their own communities only.
				if c := res.Context.Communities; c[0].ID != wantIDs[0] || len(c) >= n {
					t.Errorf("communities %v", titles(c))
				}
			}
		})
	}
}

// TestGlobalMapErrors checks that a Mapper error fails the query and names the map step, while an
// unreadable answer counts as a batch without points.
func TestGlobalMapErrors(t *testing.T) {
	engine := testEngine(t)
	errAPI := errors.New("status 503: overloaded")
	unreadable := fmt.Errorf("key points: %w", prompts.ErrUnreadable)
	tests := []struct {
		name      string
		points    func(ids []string) ([]prompts.Point, error)
		wantErr   error
		wantNoIDs []string // communities that must not be in the context
	}{
		{"API error in one batch", func(ids []string) ([]prompts.Point, error) {
			if slices.Contains(ids, "1-5") {
				return nil, errAPI
			}
			return scoredPoints(ids)
		}, errAPI, nil},
		{"unreadable batch", func(ids []string) ([]prompts.Point, error) {
			if slices.Contains(ids, "1-5") {
				return nil, unreadable
			}
			return scoredPoints(ids)
		}, nil, []string{"1-5"}},
		{"no points at all", func(ids []string) ([]prompts.Point, error) { return nil, nil }, nil, nil},
		{"every batch unreadable", func(ids []string) ([]prompts.Point, error) { return nil, unreadable }, nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			engine.Mapper = &stubMapper{points: tc.points}
			defer func() { engine.Mapper = nil }()
			res, err := engine.Query(context.Background(), "What happened?", globalOptions(150))
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) || !strings.Contains(err.Error(), "global retrieval: map step, batch") {
					t.Errorf("error %v, want one wrapping %v and naming the map step", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range res.Context.Communities {
				if slices.Contains(tc.wantNoIDs, c.ID) {
					t.Errorf("community %s of an unreadable batch is in the context", c.ID)
				}
			}
			if res.Context.Communities == nil || res.Context.Entities == nil {
				t.Errorf("nil lists in %+v", res.Context)
			}
		})
	}
}

// TestGlobalNothingFound: when the map step keeps no point, the query does not fail: the answer
// says that nothing relevant was found, without asking the answerer (the other modes' model says
// the same of a context that does not answer), and the notes say why.
func TestGlobalNothingFound(t *testing.T) {
	engine := testEngine(t)
	unreadable := fmt.Errorf("key points: %w", prompts.ErrUnreadable)
	tests := []struct {
		name        string
		points      func(ids []string) ([]prompts.Point, error)
		wantNothing bool
	}{
		{"no points at all", func([]string) ([]prompts.Point, error) { return nil, nil }, true},
		{"every point scored 0", func(ids []string) ([]prompts.Point, error) {
			return []prompts.Point{{Description: "Irrelevant [report:" + ids[0] + "]", Score: 0}}, nil
		}, true},
		{"every batch unreadable", func([]string) ([]prompts.Point, error) { return nil, unreadable }, true},
		{"points", scoredPoints, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ans := &countingAnswerer{}
			engine.Mapper, engine.Answerer = &stubMapper{points: tc.points}, ans
			defer func() { engine.Mapper, engine.Answerer = nil, nil }()
			res, err := engine.Query(context.Background(), "What happened?", globalOptions(150))
			if err != nil {
				t.Fatal(err)
			}
			if res.Answer == nil || res.AnswerNotes == nil {
				t.Fatalf("no answer: %v %+v", res.Answer, res.AnswerNotes)
			}
			if !tc.wantNothing {
				if ans.calls != 1 || res.AnswerNotes.NothingFound || *res.Answer == retrieval.NothingFoundAnswer {
					t.Errorf("%d answer calls, answer %q, notes %+v", ans.calls, *res.Answer, res.AnswerNotes)
				}
				return
			}
			if res.ContextText != "" || ans.calls != 0 {
				t.Errorf("context %q, %d answer calls; want none", res.ContextText, ans.calls)
			}
			if *res.Answer != retrieval.NothingFoundAnswer || *res.AnswerNotes != (retrieval.AnswerNotes{NothingFound: true}) {
				t.Errorf("answer %q, notes %+v", *res.Answer, res.AnswerNotes)
			}
			if w := res.AnswerNotes.Warnings(); len(w) != 0 {
				t.Errorf("warnings %q; the answer says it already", w)
			}
		})
	}
}

// countingAnswerer answers every context with a fixed text and counts its calls.
type countingAnswerer struct{ calls int }

func (a *countingAnswerer) Answer(context.Context, string, string) (retrieval.Answer, error) {
	a.calls++
	return retrieval.Answer{Text: "an answer"}, nil
}

// levelStore serves synthetic communities for the level choice: n[l] communities at level l,
// each child of community i/2 one level up, rated by number, and a fixed community index.
type levelStore struct {
	graph.ReadSearcher // nil: other methods are not used by global search
	comms              map[int][]graph.Community
	hits               []graph.Hit
	searches           atomic.Int32
}

func newLevelStore(counts []int, hits []string) *levelStore {
	s := &levelStore{comms: map[int][]graph.Community{}}
	for l, n := range counts {
		for i := range n {
			c := graph.Community{ID: graph.CommunityID(l, int64(i)), Level: l, CommunityID: int64(i),
				Title: fmt.Sprintf("Community %d-%d", l, i), Summary: "Summary.", Rating: float64(i) / 100, Size: 2}
			if l > 0 {
				c.ParentID = graph.CommunityID(l-1, int64(i/2))
			}
			s.comms[l] = append(s.comms[l], c)
		}
	}
	for _, id := range hits {
		s.hits = append(s.hits, graph.Hit{ID: id, Score: 0.9})
	}
	return s
}

// CommunityEntities: the synthetic communities have no members, so global search finds no chunks.
func (s *levelStore) CommunityEntities(context.Context, []string) (map[string][]graph.Entity, error) {
	return map[string][]graph.Entity{}, nil
}

func (s *levelStore) CommunitiesByLevel(_ context.Context, level int) ([]graph.Community, error) {
	return s.comms[level], nil
}

func (s *levelStore) Communities(_ context.Context, ids []string) ([]graph.Community, error) {
	var out []graph.Community
	for _, cs := range s.comms {
		for _, c := range cs {
			if slices.Contains(ids, c.ID) {
				out = append(out, c)
			}
		}
	}
	return out, nil
}

func (s *levelStore) VectorSearch(_ context.Context, index graph.VectorIndex, _ []float32, k int) ([]graph.Hit, error) {
	if index != graph.CommunityEmbedding {
		return nil, fmt.Errorf("unexpected index %s", index)
	}
	s.searches.Add(1)
	return s.hits[:min(k, len(s.hits))], nil
}

// TestGlobalLevelChoice checks which communities are mapped: the finest level with at most 64,
// else level 0 preselected by the community index, hits expanded to their level-0 ancestors and
// the open slots filled by rating.
func TestGlobalLevelChoice(t *testing.T) {
	tok, err := tokenizer.New()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name         string
		counts       []int
		hits         []string
		wantLevel    int
		wantN        int
		wantIncluded []string
		wantSearch   bool
	}{
		{"finest level that fits", []int{5, 40, 100}, nil, 1, 40, nil, false},
		{"all levels fit", []int{3, 6}, nil, 1, 6, nil, false},
		{"level 0 too big: index preselects", []int{70, 140}, []string{"1-5", "0-7", "1-15", "0-99", "2-1"}, 0, 64,
			// 1-5 → 0-2 and 1-15 → 0-7 (again) from the index; the rest by rating: 0-69 … 0-8.
			[]string{"0-2", "0-7", "0-8", "0-69"}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			store := newLevelStore(tc.counts, tc.hits)
			m := &stubMapper{points: scoredPoints}
			engine := &retrieval.Engine{Store: store, Embedder: embedding.NewOffline(8), Tokenizer: tok, Mapper: m}
			if _, err := engine.Query(context.Background(), "Anything?", globalOptions(0)); err != nil {
				t.Fatal(err)
			}
			var all []string
			for _, ids := range m.seen {
				all = append(all, ids...)
			}
			if len(all) != tc.wantN {
				t.Errorf("mapped %d reports, want %d", len(all), tc.wantN)
			}
			for _, id := range all {
				if !strings.HasPrefix(id, strconv.Itoa(tc.wantLevel)+"-") {
					t.Errorf("mapped %s, want level %d only", id, tc.wantLevel)
				}
			}
			for _, id := range tc.wantIncluded {
				if !slices.Contains(all, id) {
					t.Errorf("%s not mapped", id)
				}
			}
			if slices.Contains(all, "0-0") && tc.wantSearch {
				t.Errorf("the lowest-rated community was mapped although the index picked others")
			}
			if got := store.searches.Load() > 0; got != tc.wantSearch {
				t.Errorf("community index searched: %v, want %v", got, tc.wantSearch)
			}
		})
	}
}

// TestGlobalThroughLLMClient runs the map step through the real LLM client against the fake
// OpenAI server: points come back citing their reports, and the answer cites a report.
func TestGlobalThroughLLMClient(t *testing.T) {
	engine := testEngine(t)
	for _, malformed := range []float64{0, 1} {
		t.Run(fmt.Sprintf("malformed=%v", malformed), func(t *testing.T) {
			srv, fake, err := fakeopenai.Start(fakeopenai.Options{MalformedRate: malformed})
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			client, err := llm.New(llm.Config{BaseURL: srv.URL, APIKey: "sk-test-not-a-secret", CacheDir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			engine.Mapper = keypoints.Mapper{Chat: client}
			engine.Answerer = answer.New(client, answer.Options{})
			defer func() { engine.Mapper, engine.Answerer = nil, nil }()

			q := "Who commissioned the Kestrel Point Lighthouse?"
			res, err := engine.Query(context.Background(), q, globalOptions(400))
			if malformed > 0 {
				// Mangled answers may or may not parse; either way the query does not fail on
				// them, and a context left empty is answered as nothing found.
				if err != nil {
					t.Fatal(err)
				}
				if res.ContextText == "" && (res.Answer == nil || *res.Answer != retrieval.NothingFoundAnswer) {
					t.Errorf("empty context answered %v", res.Answer)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if n := fake.Counts().ByTask[keypoints.Task]; n < 2 {
				t.Errorf("%d key-points calls, want one per batch (several with 400 tokens)", n)
			}
			checkGlobalContext(t, engine.Tokenizer, res, 400)
			if c := res.Context.Communities[0]; !strings.Contains(c.Title, "Kestrel Point Lighthouse") {
				t.Errorf("first community %q: %v", c.Title, titles(res.Context.Communities))
			}
			if res.Answer == nil || !strings.Contains(*res.Answer, "[report:") {
				t.Errorf("answer %v does not cite a report", res.Answer)
			}
			if os.Getenv("STRATA_TEST_VERBOSE") != "" {
				t.Logf("context:\n%s\nanswer: %s", res.ContextText, *res.Answer)
			}
		})
	}
}
