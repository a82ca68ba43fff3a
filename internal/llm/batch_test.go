package llm

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stratarag/strata/internal/llm/fakeopenai"
)

// batchConfig is a client configuration in batch mode with a fast rhythm for tests; the wait
// is long enough that requests sent at once join one job on a loaded machine too.
func batchConfig(cacheDir string) Config {
	return Config{Batch: true, BatchWait: 150 * time.Millisecond, BatchPoll: time.Millisecond, CacheDir: cacheDir}
}

// chatAll sends one extraction request per text concurrently, as a stage does, and returns the
// answers and errors in text order.
func chatAll(t *testing.T, c *Client, ctx context.Context, texts []string) ([]ChatResponse, []error) {
	return chatAllJudged(t, c, ctx, texts, nil)
}

// chatAllJudged is chatAll with judge set on every request.
func chatAllJudged(t *testing.T, c *Client, ctx context.Context, texts []string, judge func(ChatResponse) Verdict) ([]ChatResponse, []error) {
	resps := make([]ChatResponse, len(texts))
	errs := make([]error, len(texts))
	var wg sync.WaitGroup
	for i, text := range texts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := extractRequest(t, text)
			req.Judge = judge
			resps[i], errs[i] = c.Chat(ctx, req)
		}()
	}
	wg.Wait()
	return resps, errs
}

// cacheFiles returns the chat cache entries under dir, by key, with their content.
func cacheFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	root := filepath.Join(dir, "chat")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil || d.IsDir() || strings.HasPrefix(d.Name(), ".tmp") {
			return err
		}
		b, err := os.ReadFile(p)
		out[d.Name()] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// records returns the batch job records left under a cache dir.
func records(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(dir, "batches"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// tokens is the calls and tokens of a stage, what batch mode must bill as direct calls do.
func tokens(u StageUsage) [4]int {
	return [4]int{u.LLMCalls, u.PromptTokens, u.CompletionTokens, u.CacheHits}
}

// TestBatchMatchesDirect: requests that wait together go in one job, and their answers, cache
// entries and usage are those of direct calls; a re-run is answered from the cache without a
// job; a judge's damaged answers are counted and not cached, as in direct mode.
func TestBatchMatchesDirect(t *testing.T) {
	texts := passages(7)
	tests := []struct {
		name  string
		opts  fakeopenai.Options
		size  int // Config.BatchSize
		jobs  int // jobs the batch run creates
		judge bool
	}{
		{name: "one job", jobs: 1},
		{name: "jobs of three", size: 3, jobs: 3},
		{name: "polled several times", opts: fakeopenai.Options{Batch: fakeopenai.BatchOptions{Polls: 3}}, jobs: 1},
		{name: "damaged answers", opts: fakeopenai.Options{MalformedRate: 0.5}, jobs: 1, judge: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			directDir, batchDir := t.TempDir(), t.TempDir()
			direct, _ := fake(t, tc.opts, Config{CacheDir: directDir})
			cfg := batchConfig(batchDir)
			cfg.BatchSize = tc.size
			batched, srv := fake(t, tc.opts, cfg)
			run := func(c *Client) ([]ChatResponse, []error) {
				if !tc.judge {
					return chatAll(t, c, ctx, texts)
				}
				return chatAllJudged(t, c, ctx, texts, func(r ChatResponse) Verdict {
					// Any rule will do that marks some answers damaged, the same in both modes.
					return Verdict{Salvaged: len(r.Content)%2 == 1}
				})
			}
			want, werrs := run(direct)
			got, gerrs := run(batched)
			for i := range texts {
				if werrs[i] != nil || gerrs[i] != nil {
					t.Fatalf("request %d: direct %v, batch %v", i, werrs[i], gerrs[i])
				}
				if got[i] != want[i] {
					t.Errorf("request %d: batch answer %+v, direct %+v", i, got[i], want[i])
				}
			}
			if d, b := direct.Stats().Stages[StageExtract], batched.Stats().Stages[StageExtract]; d != b {
				t.Errorf("usage: batch %+v, direct %+v", b, d)
			}
			if d, b := cacheFiles(t, directDir), cacheFiles(t, batchDir); !reflect.DeepEqual(d, b) {
				t.Errorf("cache: batch has %d entries, direct %d, or their contents differ", len(b), len(d))
			}
			counts := srv.Counts()
			if counts.BatchCreates != tc.jobs || counts.BatchLines != len(texts) {
				t.Errorf("%d jobs of %d lines, want %d of %d", counts.BatchCreates, counts.BatchLines, tc.jobs, len(texts))
			}
			if counts.Requests != 2*counts.BatchCreates {
				t.Errorf("%d requests for %d jobs: batch mode made direct calls", counts.Requests, counts.BatchCreates)
			}
			st := batched.Stats().Batch
			if st == nil || st.Jobs != tc.jobs || st.Lines != len(texts) || st.Polls < tc.jobs*(tc.opts.Batch.Polls+1) {
				t.Errorf("batch stats %+v, want %d jobs of %d lines and %d polls at least", st, tc.jobs, len(texts), tc.jobs*(tc.opts.Batch.Polls+1))
			}
			if r := records(t, batchDir); len(r) != 0 {
				t.Errorf("records left after the jobs were consumed: %v", r)
			}
			// Again: what was cached is never sent; what was damaged is asked again.
			again, _ := run(batched)
			cached := 0
			for _, r := range again {
				if r.Cached {
					cached++
				}
			}
			if wantCached := len(cacheFiles(t, batchDir)); cached != wantCached {
				t.Errorf("re-run: %d answers from the cache, want %d", cached, wantCached)
			}
			if cached == len(texts) && srv.Counts().BatchCreates != tc.jobs {
				t.Errorf("a re-run answered from the cache created jobs")
			}
		})
	}
}

// TestBatchLineFailures: lines the server fails go again in a later job, bounded; the answers
// are those of direct calls; a line failed in every try fails its call with its custom_id.
func TestBatchLineFailures(t *testing.T) {
	texts := passages(8)
	tests := []struct {
		name     string
		rate     float64
		failures int // calls that fail
	}{
		{name: "half the lines fail once or twice", rate: 0.4},
		{name: "every line fails every time", rate: 1, failures: 8},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			direct, _ := fake(t, fakeopenai.Options{}, Config{})
			want, _ := chatAll(t, direct, ctx, texts)
			c, srv := fake(t, fakeopenai.Options{Batch: fakeopenai.BatchOptions{LineErrorRate: tc.rate}}, batchConfig(t.TempDir()))
			got, errs := chatAll(t, c, ctx, texts)
			failed := 0
			for i, err := range errs {
				if err != nil {
					failed++
					if !strings.Contains(err.Error(), "extract-") || !strings.Contains(err.Error(), "gave up after 3 batch jobs") {
						t.Errorf("request %d: error without its custom_id or tries: %v", i, err)
					}
					continue
				}
				if got[i] != want[i] {
					t.Errorf("request %d: %+v, want %+v", i, got[i], want[i])
				}
			}
			if failed != tc.failures {
				t.Errorf("%d calls failed, want %d", failed, tc.failures)
			}
			counts := srv.Counts()
			st := c.Stats()
			if counts.BatchLineErrors == 0 || st.Batch.Retried == 0 || st.Stages[StageExtract].Retries != st.Batch.Retried {
				t.Errorf("line errors %d, lines sent again %d, retries counted %d", counts.BatchLineErrors, st.Batch.Retried, st.Stages[StageExtract].Retries)
			}
			if counts.BatchCreates > maxLineTries {
				t.Errorf("%d jobs: a failing line went in more than %d", counts.BatchCreates, maxLineTries)
			}
			if st.Stages[StageExtract].Failures != tc.failures || st.Stages[StageExtract].LLMCalls != len(texts)-tc.failures {
				t.Errorf("usage %+v: want %d failures", st.Stages[StageExtract], tc.failures)
			}
		})
	}
}

// TestBatchEndsUnanswered: a job that fails whole, expires or is cancelled fails the calls it
// did not answer with a BatchError naming them; the answers that came are cached and the record
// is gone, so the same requests again submit only the rest, and get the direct answers.
func TestBatchEndsUnanswered(t *testing.T) {
	texts := passages(6)
	direct, _ := fake(t, fakeopenai.Options{}, Config{})
	want, _ := chatAll(t, direct, context.Background(), texts)
	for _, end := range []string{"failed", "expired", "cancelled"} {
		t.Run(end, func(t *testing.T) {
			ctx := context.Background()
			dir := t.TempDir()
			c, srv := fake(t, fakeopenai.Options{Batch: fakeopenai.BatchOptions{End: end}}, batchConfig(dir))
			_, errs := chatAll(t, c, ctx, texts)
			var names []string
			for _, err := range errs {
				var be *BatchError
				if err == nil {
					continue
				}
				if !errors.As(err, &be) || be.Status != end || !strings.Contains(err.Error(), "the same command submits the rest again") {
					t.Fatalf("error %v, want a BatchError %s", err, end)
				}
				names = be.Lines
			}
			unanswered := len(texts) / 2
			if end == "failed" {
				unanswered = len(texts)
			}
			if len(names) != unanswered {
				t.Fatalf("%d lines named, want %d: %v", len(names), unanswered, names)
			}
			for _, n := range names {
				if !strings.HasPrefix(n, "extract-") {
					t.Errorf("custom_id %q does not name the stage", n)
				}
			}
			if got := len(cacheFiles(t, dir)); got != len(texts)-unanswered {
				t.Errorf("%d answers cached, want %d", got, len(texts)-unanswered)
			}
			if r := records(t, dir); len(r) != 0 {
				t.Errorf("record left: %v", r)
			}
			srv.SetBatch(fakeopenai.BatchOptions{})
			lines := srv.Counts().BatchLines
			got, errs := chatAll(t, c, ctx, texts)
			for i := range texts {
				if errs[i] != nil || got[i].Content != want[i].Content {
					t.Errorf("resumed request %d: %v, %q", i, errs[i], got[i].Content)
				}
			}
			if n := srv.Counts().BatchLines - lines; n != unanswered {
				t.Errorf("the resumed run sent %d lines, want the %d unanswered", n, unanswered)
			}
		})
	}
}

// TestBatchResume: a client that dies with a job in flight leaves its record; a second client
// with the same cache polls that job for its requests instead of submitting them again, caches
// the answers (those nobody asked for too) and removes the record.
func TestBatchResume(t *testing.T) {
	texts := passages(5)
	srvHTTP, srv, err := fakeopenai.Start(fakeopenai.Options{Batch: fakeopenai.BatchOptions{Polls: 1 << 30}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srvHTTP.Close)
	direct, _ := fake(t, fakeopenai.Options{}, Config{})
	want, _ := chatAll(t, direct, context.Background(), texts)

	dir := t.TempDir()
	first := client(t, srvHTTP.URL, batchConfig(dir))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan []error)
	go func() {
		_, errs := chatAll(t, first, ctx, texts)
		done <- errs
	}()
	deadline := time.Now().Add(10 * time.Second)
	for srv.Counts().BatchPolls == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no job polled")
		}
		time.Sleep(time.Millisecond)
	}
	cancel() // the process dies with its job in flight
	for i, err := range <-done {
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("request %d of the dead client: %v", i, err)
		}
	}
	if r := records(t, dir); len(r) != 1 {
		t.Fatalf("records %v, want the one job in flight", r)
	}
	srv.SetBatch(fakeopenai.BatchOptions{}) // the job completes at its next poll

	second := client(t, srvHTTP.URL, batchConfig(dir))
	got, errs := chatAll(t, second, context.Background(), texts[:3]) // a resumed stage asks for part first
	for i := range got {
		if errs[i] != nil || got[i] != want[i] {
			t.Errorf("request %d: %v %+v, want %+v", i, errs[i], got[i], want[i])
		}
	}
	counts := srv.Counts()
	if counts.BatchCreates != 1 {
		t.Errorf("%d jobs created, want the first one only", counts.BatchCreates)
	}
	st := second.Stats()
	if st.Batch.Resumed != 1 || st.Batch.Jobs != 0 {
		t.Errorf("batch stats %+v, want 1 resumed and none submitted", *st.Batch)
	}
	// Billed once, in the run that consumed the job: the three asked for and the two not.
	if u := st.Stages[StageExtract]; u.LLMCalls != len(texts) || u.CacheHits != 0 {
		t.Errorf("usage %+v: want %d calls", u, len(texts))
	}
	if r := records(t, dir); len(r) != 0 {
		t.Errorf("record left after the job was consumed: %v", r)
	}
	rest, errs := chatAll(t, second, context.Background(), texts[3:])
	for i, r := range rest {
		if errs[i] != nil || !r.Cached || r.Content != want[3+i].Content {
			t.Errorf("request %d not asked before the job was consumed: %v cached=%v", 3+i, errs[i], r.Cached)
		}
	}
	if srv.Counts().BatchCreates != 1 {
		t.Errorf("answers of the resumed job were submitted again")
	}
}

// TestBatchBudget: a job is not submitted when its predicted tokens (prompt estimate plus the
// answer cap) would pass the budget; the answers are spent when they arrive; lines held back
// go once the jobs in flight have spent less than predicted, or are refused with the figures.
func TestBatchBudget(t *testing.T) {
	texts := passages(4)
	probe, _ := fake(t, fakeopenai.Options{}, Config{})
	req := extractRequest(t, texts[0])
	_, predicted, _, _ := probe.fitted(req, probe.Format())
	predicted += req.MaxTokens
	// The passages cost the same, which makes the answers the budget allows a count.
	actual := 0
	for i, text := range texts {
		before := probe.TokensSpent()
		if _, err := probe.Chat(context.Background(), extractRequest(t, text)); err != nil {
			t.Fatal(err)
		}
		if i > 0 && probe.TokensSpent()-before != actual {
			t.Fatalf("passage %d costs %d tokens, the first %d", i, probe.TokensSpent()-before, actual)
		}
		actual = probe.TokensSpent() - before
	}
	// expect plays the rule: a job takes the lines whose predictions fit what is left once
	// the jobs before it have spent.
	expect := func(budget int) int {
		if budget == 0 {
			return len(texts)
		}
		n, spent := 0, 0
		for n < len(texts) {
			k := 0
			for n+k < len(texts) && spent+(k+1)*predicted <= budget {
				k++
			}
			if k == 0 {
				break
			}
			n, spent = n+k, spent+k*actual
		}
		return n
	}
	tests := []struct {
		name   string
		budget int
	}{
		{name: "no budget", budget: 0},
		{name: "room for all", budget: 4 * predicted},
		{name: "room for one prediction", budget: predicted},
		{name: "room for less than one", budget: predicted - 1},
		{name: "room for two predictions, then what the spend leaves", budget: 2*predicted + 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := batchConfig("")
			cfg.TokenBudget = tc.budget
			c, srv := fake(t, fakeopenai.Options{}, cfg)
			_, errs := chatAll(t, c, context.Background(), texts)
			answered := 0
			for _, err := range errs {
				var be *BudgetError
				switch {
				case err == nil:
					answered++
				case errors.As(err, &be):
					if be.Limit != tc.budget || be.Predicted != predicted || !strings.Contains(err.Error(), "next batch job") {
						t.Errorf("refusal %+v", be)
					}
				default:
					t.Fatal(err)
				}
			}
			if want := expect(tc.budget); answered != want {
				t.Errorf("%d answered, want %d", answered, want)
			}
			if tc.budget > 0 && c.TokensSpent() > tc.budget {
				t.Errorf("spent %d of a budget of %d", c.TokensSpent(), tc.budget)
			}
			if c.TokensSpent() != answered*actual {
				t.Errorf("spent %d, want %d answers of %d", c.TokensSpent(), answered, actual)
			}
			if answered == 0 && srv.Counts().BatchCreates != 0 {
				t.Errorf("a job was submitted past the budget")
			}
		})
	}
}

// TestBatchConfig: batch settings out of range are refused, zero ones take the defaults.
func TestBatchConfig(t *testing.T) {
	for _, cfg := range []Config{{BatchSize: -1}, {BatchSize: MaxBatchSize + 1}, {BatchWait: -time.Second}, {BatchPoll: -time.Second}} {
		if _, err := cfg.withDefaults(); err == nil {
			t.Errorf("%+v accepted", cfg)
		}
	}
	got, err := Config{Batch: true}.withDefaults()
	if err != nil || got.BatchSize != DefaultBatchSize || got.BatchWait != DefaultBatchWait || got.BatchPoll != DefaultBatchPoll {
		t.Errorf("defaults %d %s %s, %v", got.BatchSize, got.BatchWait, got.BatchPoll, err)
	}
	if !strings.Contains(got.String(), "batch{size=1000") {
		t.Errorf("String() does not describe batch mode: %s", got)
	}
}
