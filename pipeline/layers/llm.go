package layers

import (
	"cmp"
	"context"
	"errors"
	"fmt"

	"github.com/stratarag/strata/internal/llmtask"
	"github.com/stratarag/strata/internal/llmtask/summaryentities"

	"github.com/stratarag/strata/internal/llm"
	"github.com/stratarag/strata/internal/textutil"
	"github.com/stratarag/strata/internal/tokenizer"
	"github.com/stratarag/strata/prompts"
)

// LLM summarizes a cluster with a model (HiIndex's summary-entity prompt, guided by the meta
// types). A cluster whose answer is unreadable (it holds no entity) gets an extractive summary,
// so one bad answer never breaks the hierarchy; API errors do fail the stage.
type LLM struct {
	Chat      llm.Chatter
	Tokenizer *tokenizer.Tokenizer
	// MaxInputTokens bounds the cluster text of one prompt (llmtask.ClusterInputTokens when
	// zero).
	MaxInputTokens int
	// MinInputTokens is the cluster text below which the summary is extractive, without a call
	// (MinSummaryInputTokens when zero, every cluster asked when negative).
	MinInputTokens int
}

// MinSummaryInputTokens is the default of LLM.MinInputTokens: a cluster of ten members or so, a
// sentence each, is read as well from its members as from a theme a model names for it.
const MinSummaryInputTokens = 500

// Summarize implements Summarizer.
func (x *LLM) Summarize(ctx context.Context, members []Member) ([]Summary, error) {
	text := x.clusterText(members)
	if x.Tokenizer.Count(text) < x.minText() {
		return Extractive{}.Summarize(ctx, members)
	}
	recs, err := summaryentities.Ask(ctx, x.Chat, text, nil)
	if errors.Is(err, prompts.ErrUnreadable) {
		return Extractive{}.Summarize(ctx, members)
	}
	if err != nil {
		return nil, err
	}
	out := make([]Summary, len(recs.Entities))
	for i, e := range recs.Entities {
		out[i] = Summary{Name: e.Name, Type: e.Type, Description: e.Description}
	}
	return out, nil
}

func (x *LLM) minText() int {
	if x.MinInputTokens < 0 {
		return 0
	}
	return cmp.Or(x.MinInputTokens, MinSummaryInputTokens)
}

// memberRunes bounds a member's description in the prompt: a summary entity is built from what
// each member is, which the first sentence of its description says, not from every mention
// merged into it.
const memberRunes = 160

// clusterOverhead is the summary-entities prompt's tokens besides the member list, generously.
const clusterOverhead = 350

// clusterText lists the members, most connected first, within the input budget and what the
// model's window holds beside the instructions and the answer.
func (x *LLM) clusterText(members []Member) string {
	budget := x.MaxInputTokens
	if budget <= 0 {
		budget = llmtask.ClusterInputTokens
	}
	budget = llmtask.FitInput(x.Chat, budget, summaryentities.MaxTokens, clusterOverhead)
	return prompts.MemberLines(x.Tokenizer.Count, budget, members, func(m Member) (string, string, string) {
		return m.Name, m.Type, textutil.Clip(m.Description, memberRunes)
	})
}

// SampleCompletion summarizes the cluster of members as the stage would, kept out of the cache,
// and returns the tokens of the answer: what one summary call makes the model write, for a dry
// run to measure.
func (x *LLM) SampleCompletion(ctx context.Context, members []Member) (int, error) {
	s := &llm.Sampler{Next: x.Chat, Count: x.Tokenizer.Count}
	y := *x
	y.Chat = s
	y.MinInputTokens = -1 // the sample measures a call, whatever the cluster's size
	if _, err := y.Summarize(ctx, members); err != nil {
		return 0, fmt.Errorf("sample a summary: %w", err)
	}
	t, calls := s.Answered(llm.StageLayers)
	if calls == 0 {
		return 0, nil
	}
	return t / calls, nil
}
