package pipeline_test

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/stratarag/strata/internal/embedding"
	"github.com/stratarag/strata/internal/llm"
	"github.com/stratarag/strata/pipeline"
	"github.com/stratarag/strata/pipeline/arch"
	"github.com/stratarag/strata/pipeline/extract"
	"github.com/stratarag/strata/pipeline/layers"
	"github.com/stratarag/strata/pipeline/load"
	"github.com/stratarag/strata/pipeline/reports"
)

func TestEstimateOffline(t *testing.T) {
	in := newIngester(t, nil, nil) // no store: an estimate never touches it
	est, err := in.Estimate(context.Background(), []string{corpusDir, badDir})
	if err != nil {
		t.Fatal(err)
	}
	// The corpus's 17 documents and the one good line of broken.jsonl; the other bad inputs are
	// reported as a run would report them.
	if !est.Offline || est.Documents != 18 || est.Chunks < est.Documents || est.CorpusTokens == 0 || len(est.LLM.Stages) != 0 {
		t.Errorf("offline estimate %+v", est)
	}
	if len(est.Problems) != 6 || !errors.Is(est.Problems[0].Err, load.ErrBinary) {
		t.Errorf("skipped inputs %v", est.Problems)
	}

	est, err = in.Estimate(context.Background(), []string{filepath.Join(badDir, "empty.txt")})
	if !errors.Is(err, pipeline.ErrNothingIngested) || est.Documents != 0 {
		t.Errorf("estimate of an empty input: %+v, %v", est, err)
	}
}

// estimatingExtractor predicts 10 prompt and 5 completion tokens and 3 records per chunk.
type estimatingExtractor struct{ extract.Extractor }

func (estimatingExtractor) Estimate(_ context.Context, texts []string) (llm.Estimate, error) {
	e := llm.Estimate{Records: 3 * len(texts)}
	e.Add(llm.StageExtract, llm.StageEstimate{Calls: len(texts), PromptTokens: 10 * len(texts), CompletionTokens: 5 * len(texts)})
	return e, nil
}

// silentExtractor calls a model, it says, and cannot tell what that costs.
type silentExtractor struct{ *extract.Offline }

func (silentExtractor) Name() string { return "llm:unknown" }

// estimatingEmbedder predicts one embedding call for all texts.
type estimatingEmbedder struct{ embedding.Embedder }

func (estimatingEmbedder) EstimateEmbeddings(texts []string) llm.StageEstimate {
	return llm.StageEstimate{Calls: 1, EmbeddingTokens: len(texts)}
}

func TestEstimateWithModels(t *testing.T) {
	in := newIngester(t, nil, estimatingExtractor{extract.NewOffline()})
	in.Embedder = estimatingEmbedder{in.Embedder}
	est, err := in.Estimate(context.Background(), []string{corpusDir})
	if err != nil {
		t.Fatal(err)
	}
	ex, emb := est.LLM.Stages[llm.StageExtract], est.LLM.Stages[llm.StageEmbed]
	if est.Offline || ex.Calls != est.Chunks || emb.Calls != 1 || emb.EmbeddingTokens != est.Chunks {
		t.Errorf("estimate %+v", est)
	}
	// Embedding tokens are not chat tokens: only extraction's 15 per chunk count.
	if want := float64(15*est.Chunks) / float64(est.CorpusTokens); est.TokensPerCorpusToken != want {
		t.Errorf("LLM tokens per corpus token %v, want %v", est.TokensPerCorpusToken, want)
	}
	if n := len(est.LLM.Assumptions); n == 0 || !strings.Contains(est.LLM.Assumptions[n-1], "not counted") {
		t.Errorf("assumptions %v", est.LLM.Assumptions)
	}

	// Offline extraction with a model embedder: the embeddings alone, no chat call.
	in.Extractor = extract.NewOffline()
	est, err = in.Estimate(context.Background(), []string{corpusDir})
	if err != nil || est.Offline || len(est.LLM.Stages) != 1 || est.LLM.Stages[llm.StageEmbed].Calls != 1 || est.TokensPerCorpusToken != 0 {
		t.Errorf("offline extraction, model embedder: %+v %v", est, err)
	}
	// A model-backed embedder with an extractor that cannot say what it costs: no guess.
	in.Extractor = silentExtractor{extract.NewOffline()}
	if _, err := in.Estimate(context.Background(), []string{corpusDir}); err == nil {
		t.Error("estimate without an estimating extractor succeeded")
	}
}

// TestEstimateArch: with --arch the dry run adds the attributed-community summaries as their
// own stage, with the assumption they rest on, and counts them in the ratio.
func TestEstimateArch(t *testing.T) {
	in := newIngester(t, nil, estimatingExtractor{extract.NewOffline()})
	in.Embedder = estimatingEmbedder{in.Embedder}
	without, err := in.Estimate(context.Background(), []string{corpusDir})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := without.LLM.Stages[llm.StageArch]; ok {
		t.Errorf("arch stage without --arch: %+v", without.LLM.Stages)
	}
	in.Options.Arch = arch.DefaultOptions()
	est, err := in.Estimate(context.Background(), []string{corpusDir})
	if err != nil {
		t.Fatal(err)
	}
	// 17 chunks × 17 entities = 289 nodes → ⌈289/80⌉ = 4 communities, which are too few to
	// cluster again.
	a := est.LLM.Stages[llm.StageArch]
	if est.Chunks != 17 || a.Calls != 4 || a.PromptTokens != 4*3300 || a.CompletionTokens != 4*105 {
		t.Errorf("arch estimate %+v for %d chunks, want 4 calls of 3300 + 105 tokens", a, est.Chunks)
	}
	if n := len(est.LLM.Assumptions); n == 0 || !strings.Contains(est.LLM.Assumptions[n-1], "--arch") {
		t.Errorf("assumptions %v: want the arch one last", est.LLM.Assumptions)
	}
	// The ratio counts every stage: the arch calls' tokens on top of the rest.
	want := without.TokensPerCorpusToken + float64(a.PromptTokens+a.CompletionTokens)/float64(est.ExtractTokens)
	if math.Abs(est.TokensPerCorpusToken-want) > 1e-9 {
		t.Errorf("tokens per corpus token %v with --arch, want %v (%v without)", est.TokensPerCorpusToken, want, without.TokensPerCorpusToken)
	}
}

// stagedChat answers each stage with a fixed text and counts the calls that ask to be cached.
type stagedChat struct {
	answers map[string]string
	calls   map[string]int
	stored  int
}

func (s *stagedChat) Chat(_ context.Context, req llm.ChatRequest) (llm.ChatResponse, error) {
	s.calls[req.Stage]++
	if !req.NoStore {
		s.stored++
	}
	return llm.ChatResponse{Content: s.answers[req.Stage]}, nil
}

// TestEstimateSamplesStructure: a fresh build's dry run measures what one summary call and one
// report call make the model write, kept out of the cache, and counts every call of those stages
// at that length; without the sample (the budget's check, before any call) the ratios stand.
func TestEstimateSamplesStructure(t *testing.T) {
	chat := &stagedChat{calls: map[string]int{}, answers: map[string]string{
		llm.StageLayers: `("entity"<|>HARBOUR AFFAIRS<|>theme<|>` + strings.Repeat("The guilds and the harbour of the town. ", 20) + `)##<|COMPLETE|>`,
		llm.StageReport: `{"title": "Guilds", "summary": "` + strings.Repeat("The guilds ran the harbour. ", 60) + `", "rating": 5, "findings": []}`,
	}}
	in := newIngester(t, nil, estimatingExtractor{extract.NewOffline()})
	in.Embedder = estimatingEmbedder{in.Embedder}
	in.LayerSummarizer = &layers.LLM{Chat: chat, Tokenizer: in.Tokenizer}
	in.Reporter = &reports.LLM{Chat: chat, Embedder: in.Embedder, Tokenizer: in.Tokenizer, Log: zerolog.Nop()}
	sampled, err := in.Estimate(context.Background(), []string{corpusDir})
	if err != nil {
		t.Fatal(err)
	}
	if chat.calls[llm.StageLayers] != 1 || chat.calls[llm.StageReport] != 1 || chat.stored != 0 {
		t.Fatalf("sample calls %v, %d to be cached; want one of each stage, none cached", chat.calls, chat.stored)
	}
	for _, stage := range []string{llm.StageLayers, llm.StageReport} {
		s, n := sampled.LLM.Stages[stage], in.Tokenizer.Count(chat.answers[stage])
		// The expected calls (a fraction of the last one counted) of n answer tokens each.
		if s.Calls == 0 || s.CompletionTokens <= (s.Calls-1)*n || s.CompletionTokens > s.Calls*n {
			t.Errorf("%s: %+v, want up to %d calls of %d answer tokens", stage, s, s.Calls, n)
		}
	}
	in.NoSample = true
	assumed, err := in.Estimate(context.Background(), []string{corpusDir})
	if err != nil {
		t.Fatal(err)
	}
	if chat.calls[llm.StageReport] != 1 {
		t.Errorf("the estimate without a sample called the model")
	}
	if a, s := assumed.LLM.Stages[llm.StageReport], sampled.LLM.Stages[llm.StageReport]; a.Calls != s.Calls || a.CompletionTokens >= s.CompletionTokens {
		t.Errorf("report without the sample %+v, with it %+v: this model writes longer reports than the ratio says", a, s)
	}
}

// TestEstimateUpdateFromNamedEntities: the dry run of an added document finds the stored
// entities its text names (through the offline extractor, before any call) and predicts the
// reports of the communities holding them; a text naming none of them changes no stored
// community.
func TestEstimateUpdateFromNamedEntities(t *testing.T) {
	ctx := context.Background()
	in := newIngester(t, openStore(t, t.TempDir()), nil)
	if _, err := in.Run(ctx, []string{corpusDir}); err != nil {
		t.Fatal(err)
	}
	chat := &stagedChat{calls: map[string]int{}, answers: map[string]string{
		llm.StageReport: `{"title": "Guilds", "summary": "The guilds ran the harbour.", "rating": 5, "findings": []}`,
	}}
	in.Extractor = estimatingExtractor{extract.NewOffline()}
	in.Reporter = &reports.LLM{Chat: chat, Embedder: in.Embedder, Tokenizer: in.Tokenizer, Log: zerolog.Nop(), MinInputTokens: -1}
	reportCalls := func(name, text string) int {
		t.Helper()
		path := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		est, err := in.Estimate(ctx, []string{path})
		if err != nil {
			t.Fatal(err)
		}
		if est.ExtractChunks != 1 {
			t.Fatalf("%s: %d chunks to extract, want 1", name, est.ExtractChunks)
		}
		return est.LLM.Stages[llm.StageReport].Calls
	}
	if n := reportCalls("named.md", "Corvin Hale captained the Grey Heron. The Grey Heron sailed for Corvin Hale in spring."); n == 0 {
		t.Error("a document naming stored entities: no report predicted")
	}
	if n := reportCalls("unnamed.md", "Quillon Marsh sold tin to Ostrava Pell. Ostrava Pell paid Quillon Marsh in silver."); n != 0 {
		t.Errorf("a document naming no stored entity: %d reports predicted, want 0", n)
	}
}
