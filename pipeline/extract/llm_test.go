package extract

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/llm"
	"github.com/stratarag/strata/internal/llm/fakeopenai"
	"github.com/stratarag/strata/internal/tokenizer"
	"github.com/stratarag/strata/pipeline/chunk"
)

func fakeClient(t testing.TB, opts fakeopenai.Options, cfg llm.Config) (*llm.Client, *fakeopenai.Server) {
	t.Helper()
	srv, s, err := fakeopenai.Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	cfg.BaseURL = srv.URL + "/v1"
	cfg.APIKey = "test"
	if cfg.RetryBaseDelay == 0 {
		cfg.RetryBaseDelay, cfg.RetryMaxDelay = time.Millisecond, 5*time.Millisecond
	}
	c, err := llm.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c, s
}

// corpus returns the project's test corpus texts (markdown and text files).
func corpus(t testing.TB) []string {
	t.Helper()
	paths, _ := filepath.Glob("../../testdata/corpus/*")
	var out []string
	for _, p := range paths {
		if !strings.HasSuffix(p, ".md") && !strings.HasSuffix(p, ".txt") {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	if len(out) == 0 {
		out = []string{
			"Ilsa Marrow founded the Saltmere Cartographers' Guild in 1102. Corvin Hale joined the Saltmere Cartographers' Guild in 1112.",
			"The Treaty of Vell ended the Salt Tariff Dispute between Port Avel and the Vell Council. Brenna signed it.",
		}
	}
	return out
}

// extractAll runs x over texts concurrently, as the pipeline does.
func extractAll(t testing.TB, x Extractor, texts []string) []Result {
	t.Helper()
	out := make([]Result, len(texts))
	errs := make([]error, len(texts))
	var wg sync.WaitGroup
	for i, text := range texts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i], errs[i] = x.Extract(context.Background(), text)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	return out
}

// graphOf reduces results to a comparable graph: entity ids with types, relation keys.
func graphOf(rs []Result) (ents, rels []string) {
	for _, r := range rs {
		for _, e := range r.Entities {
			ents = append(ents, graph.NormalizeID(e.Name)+"|"+e.Type)
		}
		for _, rel := range r.Relations {
			k := graph.NewRelationKey(graph.NormalizeID(rel.Source), graph.NormalizeID(rel.Target))
			rels = append(rels, k.Source+"|"+k.Target)
		}
	}
	sort.Strings(ents)
	sort.Strings(rels)
	return ents, rels
}

func TestParseMode(t *testing.T) {
	tests := []struct {
		in   string
		want Mode
		err  bool
	}{
		{"", ModeCombined, false}, {"combined", ModeCombined, false}, {"Two-Pass", ModeTwoPass, false},
		{"hirag", ModeTwoPass, false}, {"three-pass", "", true},
	}
	for _, tc := range tests {
		got, err := ParseMode(tc.in)
		if got != tc.want || (err != nil) != tc.err {
			t.Errorf("ParseMode(%q) = %q, %v", tc.in, got, err)
		}
	}
}

func TestLLMName(t *testing.T) {
	c, _ := fakeClient(t, fakeopenai.Options{}, llm.Config{ChatModel: "m1"})
	a := NewLLM(c, LLMOptions{}).Name()
	for _, o := range []LLMOptions{{Mode: ModeTwoPass}, {Gleaning: 1}, {EntityTypes: []string{"person"}}, {ModelDescriptions: true}} {
		if b := NewLLM(c, o).Name(); b == a {
			t.Errorf("options %+v do not change the name %q", o, a)
		}
	}
	if !strings.HasPrefix(a, "llm:m1:combined:glean0:desc-passage:prompts-") {
		t.Errorf("name %q", a)
	}
}

func TestLLMExtract(t *testing.T) {
	c, s := fakeClient(t, fakeopenai.Options{}, llm.Config{})
	x := NewLLM(c, LLMOptions{Gleaning: 1})
	r, err := x.Extract(context.Background(), "Ilsa Marrow founded the Saltmere Guild in 1102. Ilsa Marrow hired Corvin Hale, and Brenna came later.")
	if err != nil {
		t.Fatal(err)
	}
	ents, rels := graphOf([]Result{r})
	want := []string{"BRENNA|organization", "CORVIN HALE|person", "ILSA MARROW|person", "SALTMERE GUILD|organization"}
	if !reflect.DeepEqual(ents, want) || len(rels) < 3 || r.Dropped != 0 {
		t.Errorf("entities %v relations %v dropped %d", ents, rels, r.Dropped)
	}
	st := c.Stats().Stages
	if st[llm.StageExtract].LLMCalls != 1 || st[llm.StageGlean].LLMCalls != 1 || s.Counts().ByTask["glean"] != 1 {
		t.Errorf("stages %+v", st)
	}

	// Nothing to extract costs nothing.
	before := s.Counts().Requests
	if r, err := x.Extract(context.Background(), "  \n"); err != nil || len(r.Entities) != 0 || s.Counts().Requests != before {
		t.Errorf("blank text: %+v %v", r, err)
	}
}

// Combined and two-pass extraction build the same graph from the fake model; this measures what
// each costs (run with -v to see the table).
func TestModeCost(t *testing.T) {
	texts := corpus(t)
	type run struct {
		name       string
		opts       LLMOptions
		ents, rels []string
		st         llm.Stats
		est        llm.StageEstimate
	}
	runs := []*run{
		// No sample: the client's figures are the extraction's alone.
		{name: "combined", opts: LLMOptions{Mode: ModeCombined, EstimateSamples: -1}},
		{name: "two-pass", opts: LLMOptions{Mode: ModeTwoPass, EstimateSamples: -1}},
		{name: "combined+glean", opts: LLMOptions{Mode: ModeCombined, Gleaning: 1, EstimateSamples: -1}},
		{name: "two-pass+glean", opts: LLMOptions{Mode: ModeTwoPass, Gleaning: 1, EstimateSamples: -1}},
	}
	for _, r := range runs {
		c, _ := fakeClient(t, fakeopenai.Options{}, llm.Config{Concurrency: 4})
		x := NewLLM(c, r.opts)
		est, err := x.Estimate(context.Background(), texts)
		if err != nil {
			t.Fatal(err)
		}
		r.est = est.Total()
		r.ents, r.rels = graphOf(extractAll(t, x, texts))
		r.st = c.Stats()
	}
	for i := 1; i < len(runs); i += 2 {
		a, b := runs[i-1], runs[i]
		if !reflect.DeepEqual(a.ents, b.ents) || !reflect.DeepEqual(a.rels, b.rels) {
			t.Errorf("%s and %s built different graphs: %d/%d entities, %d/%d relations",
				a.name, b.name, len(a.ents), len(b.ents), len(a.rels), len(b.rels))
		}
	}
	t.Logf("%d texts; graph: %d entities, %d relations (no gleaning)", len(texts), len(runs[0].ents), len(runs[0].rels))
	t.Logf("%-15s %6s %10s %11s %10s %12s", "mode", "calls", "prompt", "completion", "total", "est. prompt")
	for _, r := range runs {
		tot := r.st.Total
		t.Logf("%-15s %6d %10d %11d %10d %12d", r.name, tot.LLMCalls, tot.PromptTokens, tot.CompletionTokens,
			tot.PromptTokens+tot.CompletionTokens, r.est.PromptTokens)
	}
	comb, two := runs[0].st.Total, runs[1].st.Total
	if comb.PromptTokens >= two.PromptTokens {
		t.Errorf("combined used %d prompt tokens, two-pass %d; combined should be cheaper", comb.PromptTokens, two.PromptTokens)
	}
	// Prompt estimates are exact without gleaning in combined mode.
	if runs[0].est.PromptTokens != comb.PromptTokens || runs[0].est.Calls != comb.LLMCalls {
		t.Errorf("combined estimate %+v, actual %+v", runs[0].est, comb)
	}
}

// TestEstimateSamples: the dry run measures the model's answers on a few chunks, keeps them out
// of the cache, and predicts the run's completion tokens from them; the fixed ratio it replaces
// is a third of what this model writes.
func TestEstimateSamples(t *testing.T) {
	texts := corpus(t)
	dir := t.TempDir()
	c, s := fakeClient(t, fakeopenai.Options{}, llm.Config{CacheDir: dir})
	x := NewLLM(c, LLMOptions{EstimateSamples: 3})
	est, err := x.Estimate(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if n := s.Counts().Chat; n != 3 {
		t.Errorf("the sample made %d calls, want 3", n)
	}
	if n := c.Stats().Stages[llm.StageExtract].CacheHits; n != 0 {
		t.Errorf("%d cache hits before the run", n)
	}
	sampled := c.Stats().Stages[llm.StageExtract].CompletionTokens
	extractAll(t, x, texts)
	st := c.Stats().Stages[llm.StageExtract]
	if st.CacheHits != 0 {
		t.Errorf("the run found %d sample answers in the cache; a dry run writes nothing", st.CacheHits)
	}
	predicted, run := float64(est.Total().CompletionTokens), float64(st.CompletionTokens-sampled)
	if predicted < 0.75*run || predicted > 1.25*run {
		t.Errorf("predicted %0.f completion tokens, the run spent about %.0f", predicted, run)
	}
	if a := strings.Join(est.Assumptions, "; "); !strings.Contains(a, "measured on 3 chunks") {
		t.Errorf("assumptions do not say the ratio was measured: %s", a)
	}
}

// The same measurement over 1200-token chunks of a novel, when the shared data is present.
func TestModeCostNovel(t *testing.T) {
	b, err := os.ReadFile("../../../shared/data/christmas_carol.txt")
	if err != nil || testing.Short() {
		t.Skip("shared data not available")
	}
	tok, err := tokenizer.New()
	if err != nil {
		t.Fatal(err)
	}
	pieces, err := chunk.Split(tok, "carol", string(b), chunk.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, p := range pieces {
		texts = append(texts, p.Text)
	}
	for _, mode := range []Mode{ModeCombined, ModeTwoPass} {
		c, _ := fakeClient(t, fakeopenai.Options{}, llm.Config{Concurrency: 8})
		x := NewLLM(c, LLMOptions{Mode: mode})
		est, err := x.Estimate(context.Background(), texts)
		if err != nil {
			t.Fatal(err)
		}
		extractAll(t, x, texts)
		tot, e := c.Stats().Total, est.Total()
		t.Logf("%-9s chunks %d calls %d prompt %d completion %d | estimate: prompt %d completion %d",
			mode, len(texts), tot.LLMCalls, tot.PromptTokens, tot.CompletionTokens, e.PromptTokens, e.CompletionTokens)
	}
}

func TestFaultsDoNotChangeResults(t *testing.T) {
	texts := corpus(t)
	opts := LLMOptions{Mode: ModeCombined, Gleaning: 1}
	clean, _ := fakeClient(t, fakeopenai.Options{}, llm.Config{Concurrency: 4})
	want := extractAll(t, NewLLM(clean, opts), texts)

	faulty, s := fakeClient(t, fakeopenai.Options{
		Seed: 42, RateLimitRate: 0.15, ServerErrorRate: 0.15, RetryAfter: time.Millisecond,
	}, llm.Config{Concurrency: 4, MaxRetries: 10})
	got := extractAll(t, NewLLM(faulty, opts), texts)
	if !reflect.DeepEqual(got, want) {
		t.Error("results with injected faults differ from the fault-free run")
	}
	n := s.Counts()
	faults := n.RateLimited + n.ServerErrors
	// Every fault is retried. (A server that stops answering is not: see the llm package's
	// idle time-out.)
	if retries := faulty.Stats().Total.Retries; faults == 0 || retries != faults {
		t.Errorf("%d faults injected, %d retries", faults, retries)
	}
	t.Logf("%d requests, %d faults (%d 429, %d 500), %d answers", n.Requests, faults, n.RateLimited, n.ServerErrors, n.Chat)
}

func TestCachedRerunMakesNoCalls(t *testing.T) {
	texts := corpus(t)
	dir := t.TempDir()
	for _, mode := range []Mode{ModeCombined, ModeTwoPass} {
		opts := LLMOptions{Mode: mode, Gleaning: 1}
		first, _ := fakeClient(t, fakeopenai.Options{}, llm.Config{CacheDir: dir})
		want := extractAll(t, NewLLM(first, opts), texts)

		second, s := fakeClient(t, fakeopenai.Options{}, llm.Config{CacheDir: dir})
		x := NewLLM(second, opts)
		est, err := x.Estimate(context.Background(), texts)
		if err != nil {
			t.Fatal(err)
		}
		if tot := est.Total(); tot.Calls != 0 || tot.PromptTokens != 0 || tot.CachedCalls != first.Stats().Total.LLMCalls {
			t.Errorf("%s: dry run of a cached corpus: %+v", mode, tot)
		}
		got := extractAll(t, x, texts)
		if n := s.Counts().Requests; n != 0 {
			t.Errorf("%s: second run made %d requests", mode, n)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: cached results differ", mode)
		}
	}
}

func TestMalformedOutputIsDroppedAndCounted(t *testing.T) {
	texts := corpus(t)
	c, s := fakeClient(t, fakeopenai.Options{Seed: 9, MalformedRate: 0.5}, llm.Config{})
	results := extractAll(t, NewLLM(c, LLMOptions{}), texts)
	dropped, entities := 0, 0
	for _, r := range results {
		dropped += r.Dropped
		entities += len(r.Entities)
	}
	n := s.Counts()
	if n.Malformed == 0 || dropped != n.BrokenRecords || entities == 0 {
		t.Errorf("malformed answers %d, broken records %d, dropped %d, entities %d", n.Malformed, n.BrokenRecords, dropped, entities)
	}
}

// TestUnreadableOutputIsNoRecords: an answer with nothing readable (cut off while reasoning)
// is a chunk without records, not an error; extraction salvages, it never returns
// prompts.ErrUnreadable.
func TestUnreadableOutputIsNoRecords(t *testing.T) {
	for _, mode := range []Mode{ModeCombined, ModeTwoPass} {
		c, s := fakeClient(t, fakeopenai.Options{UnreadableRate: 1}, llm.Config{})
		r, err := NewLLM(c, LLMOptions{Mode: mode, Gleaning: 1}).Extract(context.Background(), "Ilsa Marrow met Corvin Hale in Port Avel.")
		if err != nil || len(r.Entities)+len(r.Relations) != 0 {
			t.Errorf("%s: result %+v, err %v", mode, r, err)
		}
		if n := s.Counts(); n.Unreadable == 0 || n.Unreadable != n.Chat {
			t.Errorf("%s: counts %+v", mode, n)
		}
	}
}

func TestExtractCancelled(t *testing.T) {
	c, s := fakeClient(t, fakeopenai.Options{TimeoutRate: 1}, llm.Config{Timeout: time.Minute})
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := NewLLM(c, LLMOptions{}).Extract(ctx, "Ilsa Marrow met Corvin Hale.")
		errc <- err
	}()
	for s.Counts().Timeouts == 0 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

// scripted answers each call with the next canned answer.
type scripted struct {
	answers []string
	reqs    []llm.ChatRequest
}

func (s *scripted) Chat(_ context.Context, req llm.ChatRequest) (llm.ChatResponse, error) {
	s.reqs = append(s.reqs, req)
	if len(s.answers) == 0 {
		return llm.ChatResponse{}, fmt.Errorf("unexpected call %d", len(s.reqs))
	}
	a := s.answers[0]
	s.answers = s.answers[1:]
	return llm.ChatResponse{Content: a}, nil
}

func TestMergesRepeatedRecords(t *testing.T) {
	chat := &scripted{answers: []string{
		`("entity"<|>Ilsa Marrow<|>person<|>Founder.)##
("entity"<|>ILSA  MARROW<|>organization<|>Led the guild.)##
("entity"<|>Guild<|><|>A guild.)##
("relationship"<|>Ilsa Marrow<|>Guild<|>Founded it.<|>6)##
("relationship"<|>Guild<|>Ilsa Marrow<|>Was founded by her.<|>9)##
("relationship"<|>Ilsa Marrow<|>???<|>x<|>1)##
<|COMPLETE|>`,
		`("entity"<|>Guild<|>organization<|>A guild.)##<|COMPLETE|>`, // gleaning: nothing new
	}}
	r, err := NewLLM(chat, LLMOptions{Gleaning: 3}).Extract(context.Background(), "text")
	if err != nil {
		t.Fatal(err)
	}
	want := Result{
		Entities: []Entity{
			{Name: "Ilsa Marrow", Type: "person", Description: "Founder. Led the guild."},
			{Name: "Guild", Type: "organization", Description: "A guild."},
		},
		Relations: []Relation{
			{Source: "Ilsa Marrow", Target: "Guild", Description: "Founded it. Was founded by her.", Strength: 9},
			{Source: "Ilsa Marrow", Target: "???", Description: "x", Strength: 1},
		},
	}
	if !reflect.DeepEqual(r, want) {
		t.Errorf("got %+v\nwant %+v", r, want)
	}
	if len(chat.reqs) != 2 || chat.reqs[1].Stage != llm.StageGlean || len(chat.reqs[1].Messages) != 4 {
		t.Errorf("gleaning did not stop after a round with nothing new: %d calls", len(chat.reqs))
	}
}

func TestTwoPassSkipsRelationsWithoutEntities(t *testing.T) {
	chat := &scripted{answers: []string{"<|COMPLETE|>"}}
	r, err := NewLLM(chat, LLMOptions{Mode: ModeTwoPass}).Extract(context.Background(), "nothing here")
	if err != nil || len(chat.reqs) != 1 || len(r.Entities) != 0 {
		t.Errorf("%+v %v, %d calls", r, err, len(chat.reqs))
	}
}

func TestEstimateWithoutCache(t *testing.T) {
	texts := corpus(t)
	for _, opts := range []LLMOptions{{EstimateSamples: -1}, {Mode: ModeTwoPass, Gleaning: 1, EstimateSamples: -1}} {
		x := NewLLM(&scripted{}, opts)
		est, err := x.Estimate(context.Background(), texts)
		if err != nil {
			t.Fatal(err)
		}
		calls := len(texts) * (1 + opts.Gleaning)
		if opts.Mode == ModeTwoPass {
			calls *= 2
		}
		if tot := est.Total(); tot.Calls != calls || tot.PromptTokens == 0 || tot.CompletionTokens == 0 || len(est.Assumptions) == 0 {
			t.Errorf("%+v: estimate %+v, want %d calls", opts, tot, calls)
		}
	}
}

// TestMalformedAnswersAreRetriedNotCached: salvaged answers are counted per stage and not
// cached, so a fresh run over the same cache (a new store) asks for exactly those again and
// reports the same damage, instead of rebuilding the damaged records from the cache in silence.
func TestMalformedAnswersAreRetriedNotCached(t *testing.T) {
	texts := corpus(t)
	dir := t.TempDir()
	opts := fakeopenai.Options{Seed: 9, MalformedRate: 0.5}
	first, s1 := fakeClient(t, opts, llm.Config{CacheDir: dir})
	want := extractAll(t, NewLLM(first, LLMOptions{}), texts)
	dropped := 0
	for _, r := range want {
		dropped += r.Dropped
	}
	st1 := first.Stats().Stages[llm.StageExtract]
	if st1.Damaged() == 0 || st1.DroppedRecords != s1.Counts().BrokenRecords || st1.DroppedRecords != dropped {
		t.Fatalf("first run: stage usage %+v, server broke %d records, results dropped %d", st1, s1.Counts().BrokenRecords, dropped)
	}

	second, s2 := fakeClient(t, opts, llm.Config{CacheDir: dir})
	x := NewLLM(second, LLMOptions{EstimateSamples: -1}) // no sample: the server sees the run alone
	est, err := x.Estimate(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if tot := est.Total(); tot.Calls != st1.Damaged() {
		t.Errorf("dry run over the cache: %d calls to pay for, want the %d damaged ones", tot.Calls, st1.Damaged())
	}
	got := extractAll(t, x, texts)
	st2 := second.Stats().Stages[llm.StageExtract]
	if n := s2.Counts().Chat; n != st1.Damaged() || st2.CacheHits != st1.LLMCalls-st1.Damaged() {
		t.Errorf("second run: %d requests and %d cache hits; want the %d damaged answers asked again", n, st2.CacheHits, st1.Damaged())
	}
	if st2.Salvaged != st1.Salvaged || st2.Unreadable != st1.Unreadable || st2.DroppedRecords != st1.DroppedRecords {
		t.Errorf("second run reports %+v, first %+v: the same damage must be reported again", st2, st1)
	}
	if !reflect.DeepEqual(got, want) {
		t.Error("results differ between runs of a deterministic server")
	}
}
