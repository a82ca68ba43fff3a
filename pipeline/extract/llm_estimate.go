package extract

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/stratarag/strata/internal/llm"
	"github.com/stratarag/strata/internal/llmtask/extraction"
	"github.com/stratarag/strata/internal/tokenizer"
	"github.com/stratarag/strata/prompts"
)

// Completion sizes assumed by Estimate when it measures none (LLMOptions.EstimateSamples < 0, or
// a sample that failed), as tokens of answer per token of chunk text. They come from typical
// extraction answers of instruction-tuned models on prose: a record costs 25–40 tokens and a
// dense 1200-token chunk yields 20–30 records. Dense technical text runs higher, dialogue lower;
// treat them as ±50 %.
const (
	CombinedCompletionRatio = 0.6  // combined pass: entities and relationships
	EntityCompletionRatio   = 0.35 // two-pass, entity pass
	RelationCompletionRatio = 0.35 // two-pass, relation pass
	GleanCompletionRatio    = 0.2  // one gleaning round (it only adds what was missed)
	// briefShare is the size of a brief answer (names, types and strengths) relative to one
	// with descriptions.
	briefShare = 0.3
	// listTokensPerEntityToken is the size of the entity list in the relation prompt ("Name
	// (type); …") relative to the entity answer, which also carries descriptions unless brief.
	listTokensPerEntityToken      = 0.25
	listTokensPerBriefEntityToken = 0.8
	completionFloor               = 20 // even an empty answer costs a few tokens
)

// Estimate predicts the calls and tokens Extract would spend on texts. Prompt tokens are counted
// exactly on the rendered prompts (cl100k; other tokenizers differ by ±15 %). Completion tokens
// are measured: up to EstimateSamples chunks spread over texts are extracted for real, their
// answers kept out of the cache (a dry run writes nothing; a cached answer is used as it is),
// and their answer tokens per chunk token, per stage, apply to every chunk, capped at MaxTokens;
// without a sample the ratios above apply. When the chat client can look up its cache (as
// *llm.Client can), chunks whose every call is already cached are counted as cached calls that
// cost nothing.
func (x *LLM) Estimate(ctx context.Context, texts []string) (llm.Estimate, error) {
	var tok llm.Counter
	if c, ok := x.chat.(interface{ Tokenizer() *tokenizer.Tokenizer }); ok {
		tok = c.Tokenizer()
	} else {
		t, err := tokenizer.New()
		if err != nil {
			return llm.Estimate{}, fmt.Errorf("estimate extraction: %w", err)
		}
		tok = t
	}
	lookup, _ := x.chat.(interface {
		Lookup(llm.ChatRequest) (llm.ChatResponse, bool)
	})
	ratios, sampled, err := x.sample(ctx, tok, texts)
	if err != nil {
		return llm.Estimate{}, err
	}
	var est llm.Estimate
	for _, text := range texts {
		if err := ctx.Err(); err != nil {
			return llm.Estimate{}, err
		}
		if lookup != nil {
			if cached, ok := x.cachedCalls(ctx, lookup.Lookup, text); ok {
				for stage, n := range cached {
					est.Add(stage, llm.StageEstimate{CachedCalls: n})
				}
				continue
			}
		}
		e, err := x.estimateChunk(tok, text, ratios)
		if err != nil {
			return llm.Estimate{}, err
		}
		est.Merge(e)
	}
	est.Assumptions = x.assumptions(ratios, sampled)
	return est, nil
}

// EstimateAssumed is Estimate without the sample: it makes no model call, and assumes the
// answer ratios above.
func (x *LLM) EstimateAssumed(ctx context.Context, texts []string) (llm.Estimate, error) {
	y := *x
	y.opts.EstimateSamples = -1
	return y.Estimate(ctx, texts)
}

// completionRatios are answer tokens per chunk token, per stage (llm.StageExtract,
// llm.StageRelations, llm.StageGlean), and records found per chunk token (recordsKey).
type completionRatios map[string]float64

// recordsKey keys the records found per chunk token in completionRatios.
const recordsKey = "records"

// RecordsPerToken is what Estimate assumes extraction finds, entities and relations, per token
// of chunk text when it measures none: prose's, about half what name-dense encyclopedic text
// gives (bench/README.md, "cost").
const RecordsPerToken = 0.04

func (x *LLM) defaultRatios() completionRatios {
	r := completionRatios{llm.StageExtract: CombinedCompletionRatio, llm.StageGlean: GleanCompletionRatio}
	switch x.opts.Mode {
	case ModeTwoPass:
		r = completionRatios{llm.StageExtract: EntityCompletionRatio, llm.StageRelations: RelationCompletionRatio, llm.StageGlean: GleanCompletionRatio}
	case ModeEntities:
		r[llm.StageExtract] = EntityCompletionRatio
	}
	if !x.opts.ModelDescriptions {
		for stage := range r {
			r[stage] *= briefShare
		}
	}
	r[recordsKey] = RecordsPerToken
	return r
}

// sample extracts up to EstimateSamples of texts, evenly spread, and returns the answer tokens
// per chunk token of each stage they called, the defaults for the others, and how many chunks
// it extracted. A failed sample call fails the estimate: the run would fail the same way.
func (x *LLM) sample(ctx context.Context, tok llm.Counter, texts []string) (completionRatios, int, error) {
	ratios := x.defaultRatios()
	n := min(x.opts.EstimateSamples, len(texts))
	if n <= 0 {
		return ratios, 0, nil
	}
	rec := &llm.Sampler{Next: x.chat, Count: tok.Count}
	probe := &LLM{chat: rec, opts: x.opts, model: x.model}
	chunkTokens, records := 0, 0
	for i := range n {
		text := texts[i*len(texts)/n]
		res, err := probe.Extract(ctx, text)
		if err != nil {
			return nil, 0, fmt.Errorf("estimate extraction from a sample of %d chunks: %w", n, err)
		}
		chunkTokens += tok.Count(text)
		records += len(res.Entities) + len(res.Relations)
	}
	for stage := range ratios {
		if t, calls := rec.Answered(stage); calls > 0 && chunkTokens > 0 {
			ratios[stage] = float64(t) / float64(chunkTokens)
		}
	}
	if chunkTokens > 0 {
		ratios[recordsKey] = float64(records) / float64(chunkTokens)
	}
	return ratios, n, nil
}

func (x *LLM) assumptions(r completionRatios, sampled int) []string {
	a := []string{"prompt tokens counted in cl100k on the rendered prompts"}
	source := "assumed"
	if sampled > 0 {
		source = fmt.Sprintf("measured on %d chunks extracted for real (not cached)", sampled)
	}
	switch x.opts.Mode {
	case ModeTwoPass:
		a = append(a, fmt.Sprintf("entity answers %.2f and relation answers %.2f tokens per chunk token, %s", r[llm.StageExtract], r[llm.StageRelations], source))
	default:
		a = append(a, fmt.Sprintf("combined answers %.2f tokens per chunk token, %s", r[llm.StageExtract], source))
	}
	if x.opts.Gleaning > 0 {
		a = append(a, fmt.Sprintf("every gleaning round runs and adds %.2f tokens per chunk token", r[llm.StageGlean]))
	}
	a = append(a, fmt.Sprintf("extraction finds %.3f entities and relations per chunk token, %s", r[recordsKey], source))
	return append(a, fmt.Sprintf("answers capped at %d tokens", x.opts.MaxTokens),
		"chunks with any uncached call are counted in full")
}

func (x *LLM) completion(chunkTokens int, ratio float64) int {
	return min(x.opts.MaxTokens, completionFloor+int(math.Round(ratio*float64(chunkTokens))))
}

// estimateChunk predicts the calls of Extract on one chunk.
func (x *LLM) estimateChunk(tok llm.Counter, text string, r completionRatios) (llm.Estimate, error) {
	var est llm.Estimate
	if text == "" {
		return est, nil
	}
	chunk := tok.Count(text)
	est.Records = int(math.Round(r[recordsKey] * float64(chunk)))
	in := x.input(text)
	if f, ok := x.chat.(interface{ Format() llm.Format }); ok {
		in.JSON = f.Format() != llm.FormatText // the prompt that will be sent
	}
	follow, err := extraction.Glean(extraction.KindCombined)
	if err != nil {
		return est, err
	}
	gleanTok := tok.Count(follow) + 8 // the follow-up plus the framing of two more messages
	// conversation adds one prompt and its gleaning rounds, each resending the conversation.
	conversation := func(stage string, prompt, answer int) {
		est.Add(stage, llm.StageEstimate{Calls: 1, PromptTokens: prompt, CompletionTokens: answer})
		for range x.opts.Gleaning {
			prompt += answer + gleanTok
			answer = x.completion(chunk, r[llm.StageGlean])
			est.Add(llm.StageGlean, llm.StageEstimate{Calls: 1, PromptTokens: prompt, CompletionTokens: answer})
		}
	}
	count := func(p prompts.Prompt) int {
		return llm.CountMessages(tok, []llm.Message{{Content: p.System}, {Content: p.User}})
	}
	switch x.opts.Mode {
	case ModeCombined:
		p, err := extraction.Combined(in)
		if err != nil {
			return est, err
		}
		conversation(llm.StageExtract, count(p), x.completion(chunk, r[llm.StageExtract]))
	case ModeEntities:
		p, err := extraction.Entities(in)
		if err != nil {
			return est, err
		}
		conversation(llm.StageExtract, count(p), x.completion(chunk, r[llm.StageExtract]))
	case ModeTwoPass:
		p, err := extraction.Entities(in)
		if err != nil {
			return est, err
		}
		entAnswer := x.completion(chunk, r[llm.StageExtract])
		conversation(llm.StageExtract, count(p), entAnswer)
		rp, err := extraction.Relations(in, nil)
		if err != nil {
			return est, err
		}
		perToken := listTokensPerEntityToken
		if in.Brief {
			perToken = listTokensPerBriefEntityToken
		}
		list := int(math.Round(perToken * float64(entAnswer*(1+x.opts.Gleaning))))
		conversation(llm.StageRelations, count(rp)+list, x.completion(chunk, r[llm.StageRelations]))
	default:
		return est, fmt.Errorf("LLM extractor: unknown mode %q", x.opts.Mode)
	}
	return est, nil
}

var errNotCached = errors.New("not cached")

// cacheProbe answers from the cache only, counting the calls it answered per stage.
type cacheProbe struct {
	lookup func(llm.ChatRequest) (llm.ChatResponse, bool)
	calls  map[string]int
}

func (p *cacheProbe) Chat(_ context.Context, req llm.ChatRequest) (llm.ChatResponse, error) {
	resp, ok := p.lookup(req)
	if !ok {
		return llm.ChatResponse{}, errNotCached
	}
	p.calls[req.Stage]++
	return resp, nil
}

// cachedCalls replays Extract on text against the cache alone. It returns the calls per stage
// when every call Extract would make is cached.
func (x *LLM) cachedCalls(ctx context.Context, lookup func(llm.ChatRequest) (llm.ChatResponse, bool), text string) (map[string]int, bool) {
	probe := &cacheProbe{lookup: lookup, calls: map[string]int{}}
	replay := &LLM{chat: probe, opts: x.opts, model: x.model}
	if _, err := replay.Extract(ctx, text); err != nil {
		return nil, false
	}
	return probe.calls, true
}
