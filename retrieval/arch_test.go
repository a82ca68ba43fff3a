package retrieval_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/stratarag/strata/internal/embedded"
	"github.com/stratarag/strata/internal/llm"
	"github.com/stratarag/strata/internal/llm/fakeopenai"
	"github.com/stratarag/strata/internal/llmtask/keypoints"
	"github.com/stratarag/strata/pipeline/pipelinetest"
	"github.com/stratarag/strata/prompts"
	"github.com/stratarag/strata/retrieval"
	"github.com/stratarag/strata/retrieval/answer"
)

// TestArchOffline: points from every layer, scored by similarity and ranked, within the budget;
// the context lists the entities and communities behind them and the source chunks.
func TestArchOffline(t *testing.T) {
	engine := testEngine(t)
	opt := retrieval.DefaultOptions(retrieval.ModeArch)
	opt.MaxContextTokens = 2000
	res, err := engine.Query(context.Background(), "Who designed the Kestrel Point Lighthouse?", opt)
	if err != nil {
		t.Fatal(err)
	}
	if n := engine.Tokenizer.Count(res.ContextText); n > opt.MaxContextTokens {
		t.Errorf("context of %d tokens, budget %d", n, opt.MaxContextTokens)
	}
	if !strings.HasPrefix(res.ContextText, "-----Findings-----") || !strings.Contains(res.ContextText, "-----Sources-----") {
		t.Errorf("context text lacks its sections:\n%s", res.ContextText)
	}
	scores := regexp.MustCompile(`\(layer (\d+), importance ([0-9.]+)\)`).FindAllStringSubmatch(res.ContextText, -1)
	layers := map[string]bool{}
	last := 101.0
	for _, m := range scores {
		layers[m[1]] = true
		var s float64
		fmt.Sscan(m[2], &s)
		if s > last || s <= 0 {
			t.Errorf("importance %v after %v: want positive and descending", s, last)
		}
		last = s
	}
	if !layers["0"] || !layers["1"] {
		t.Errorf("points from layers %v, want layer 0 and 1", layers)
	}
	if len(res.Context.Entities) == 0 || len(res.Context.Communities) == 0 || len(res.Context.Chunks) == 0 {
		t.Errorf("context lists %d entities, %d communities, %d chunks; want some of each",
			len(res.Context.Entities), len(res.Context.Communities), len(res.Context.Chunks))
	}
	if res.Context.Chunks[0].DocumentID != "kestrel-lighthouse.md" {
		t.Errorf("first chunk from %s, want kestrel-lighthouse.md", res.Context.Chunks[0].DocumentID)
	}
	for _, c := range res.Context.Communities {
		if !strings.HasPrefix(c.ID, "A") || c.Level < 1 {
			t.Errorf("community %+v is not an attributed community", c)
		}
	}
}

// TestArchNeedsHierarchy: a store built without --arch says how to build one.
func TestArchNeedsHierarchy(t *testing.T) {
	f := pipelinetest.Ingested(t, 384)
	empty, err := embedded.Open(context.Background(), t.TempDir(), embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer empty.Close()
	engine := &retrieval.Engine{Store: empty, Embedder: f.Embedder, Tokenizer: f.Tokenizer}
	_, err = engine.Query(context.Background(), "anything", retrieval.DefaultOptions(retrieval.ModeArch))
	if err == nil || !strings.Contains(err.Error(), "--arch") {
		t.Errorf("query on a store without attributed communities: %v, want an error naming --arch", err)
	}
}

// TestArchFilterStep: with a model, each layer is one filtering call whose points cite nodes by
// their labels; points map back to the nodes, unscored ones are dropped, errors fail the query.
func TestArchFilterStep(t *testing.T) {
	engine := testEngine(t)
	q := "Who designed the Kestrel Point Lighthouse?"
	m := &stubMapper{points: func(ids []string) ([]prompts.Point, error) {
		var pts []prompts.Point
		for i, id := range ids {
			pts = append(pts, prompts.Point{Description: fmt.Sprintf("Point of [report:%s].", id), Score: float64(10 * i)})
		}
		return pts, nil
	}}
	engine.Mapper = m
	defer func() { engine.Mapper = nil }()
	res, err := engine.Query(context.Background(), q, retrieval.DefaultOptions(retrieval.ModeArch))
	if err != nil {
		t.Fatal(err)
	}
	if n := int(m.calls.Load()); n < 2 {
		t.Errorf("%d filtering calls, want one per layer (at least 2)", n)
	}
	for _, ids := range m.seen {
		for _, id := range ids {
			if !regexp.MustCompile(`^L\d+-\d+$`).MatchString(id) {
				t.Errorf("node label %q in the prompt, want L<layer>-<n>", id)
			}
		}
	}
	if strings.Contains(res.ContextText, "importance 0)") || strings.Contains(res.ContextText, "[report:") {
		t.Errorf("zero-scored points kept or labels left in the context:\n%s", res.ContextText)
	}
	if !strings.Contains(res.ContextText, "(layer 0, importance 90) Point of. [entity:") {
		t.Errorf("the best layer-0 point is not first among its layer, or not mapped back to its entity:\n%s", res.ContextText)
	}

	m.points = func([]string) ([]prompts.Point, error) { return nil, fmt.Errorf("wrapped: %w", prompts.ErrUnreadable) }
	if _, err := engine.Query(context.Background(), q, retrieval.DefaultOptions(retrieval.ModeArch)); err != nil {
		t.Errorf("unreadable answers failed the query: %v", err)
	}
	errAPI := errors.New("status 500")
	m.points = func([]string) ([]prompts.Point, error) { return nil, errAPI }
	if _, err := engine.Query(context.Background(), q, retrieval.DefaultOptions(retrieval.ModeArch)); !errors.Is(err, errAPI) {
		t.Errorf("API error: %v, want it returned", err)
	}
}

// TestArchThroughLLMClient runs the filtering step through the real LLM client against the fake
// OpenAI server, and the answer cites a source.
func TestArchThroughLLMClient(t *testing.T) {
	engine := testEngine(t)
	srv, fake, err := fakeopenai.Start(fakeopenai.Options{})
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
	res, err := engine.Query(context.Background(), "Who commissioned the Kestrel Point Lighthouse?", retrieval.DefaultOptions(retrieval.ModeArch))
	if err != nil {
		t.Fatal(err)
	}
	if n := fake.Counts().ByTask[keypoints.Task]; n < 2 {
		t.Errorf("%d key-points calls, want one per layer", n)
	}
	if !strings.Contains(res.ContextText, "Kestrel Point Lighthouse") || res.Answer == nil || !strings.Contains(*res.Answer, "[") {
		t.Errorf("context or answer lacks the lighthouse or a citation:\n%s\nanswer: %v", res.ContextText, res.Answer)
	}
	if st := client.Stats(); st.Stages[llm.StageMap].LLMCalls < 2 {
		t.Errorf("map stage calls %d, want the filtering calls counted there", st.Stages[llm.StageMap].LLMCalls)
	}
}
