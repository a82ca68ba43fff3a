package main

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/urfave/cli/v2"

	"github.com/stratarag/strata/internal/llm"
	"github.com/stratarag/strata/internal/llmtask/keypoints"
	"github.com/stratarag/strata/internal/llmtask/pairjudge"
	"github.com/stratarag/strata/internal/tokenizer"
	"github.com/stratarag/strata/retrieval"
	"github.com/stratarag/strata/retrieval/answer"
	"github.com/stratarag/strata/retrieval/eval"
)

// Completion sizes eval's dry run assumes for calls the cache does not answer, in tokens. An
// answer of gpt-4o-mini or a local 7B model over strata's context runs 150–400 tokens (the
// published HiRAG answers on Mix, by DeepSeek-V3, average about 700); a verdict is four
// one-sentence reasons; a map batch's points a few lines each. Treat them as ±50 %.
const (
	assumedAnswerTokens = 300
	assumedJudgeTokens  = 250
	assumedMapTokens    = 200
)

// placeholder is what the dry run's stand-in model answers a question with; a judge prompt
// that shows it is counted as if it showed an answer of assumedAnswerTokens.
const placeholder = "(dry run: answer not generated)"

// probeChat stands in for a client in eval's dry run, as extraction's cache probe does for
// ingest's: a request the response cache answers is counted as cached and answered from it; any
// other is counted as a call to pay for (its prompt counted on the rendered messages, its answer
// assumed) and answered with a placeholder, so that the run goes on to the prompts that follow
// (the judge's, over the answers). It asks nothing of the server.
type probeChat struct {
	client *llm.Client
	mu     sync.Mutex
	est    llm.Estimate
}

// Chat implements llm.Chatter without calling the model.
func (p *probeChat) Chat(_ context.Context, req llm.ChatRequest) (llm.ChatResponse, error) {
	stage := req.Stage
	if stage == "" {
		stage = llm.StageOther
	}
	if resp, ok := p.client.Lookup(req); ok {
		p.add(stage, llm.StageEstimate{CachedCalls: 1})
		return resp, nil
	}
	prompt := p.client.CountMessages(req.Messages)
	for _, m := range req.Messages {
		if n := strings.Count(m.Content, placeholder); n > 0 {
			prompt += n * (assumedAnswerTokens - p.client.Tokenizer().Count(placeholder))
		}
	}
	completion, content := assumedAnswerTokens, placeholder
	switch stage {
	case pairjudge.Stage:
		completion = assumedJudgeTokens
		content = `{"comprehensiveness": "tie", "empowerment": "tie", "diversity": "tie", "overall": "tie"}`
	case llm.StageMap:
		completion, content = assumedMapTokens, `{"points": []}`
	}
	if req.MaxTokens > 0 {
		completion = min(completion, req.MaxTokens)
	}
	p.add(stage, llm.StageEstimate{Calls: 1, PromptTokens: prompt, CompletionTokens: completion})
	return llm.ChatResponse{Content: content}, nil
}

func (p *probeChat) add(stage string, e llm.StageEstimate) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.est.Add(stage, e)
}

// ContextWindow is the client's, so that answers and contexts are fitted as in the real run.
func (p *probeChat) ContextWindow() int { return p.client.ContextWindow() }

// Tokenizer is the client's, for the judge's clipping of long answers.
func (p *probeChat) Tokenizer() *tokenizer.Tokenizer { return p.client.Tokenizer() }

// evalEstimate is eval --dry-run's report.
type evalEstimate struct {
	Mode      retrieval.Mode `json:"mode"`
	Questions int            `json:"questions"`
	Against   string         `json:"against,omitempty"`
	Estimate  llm.Estimate   `json:"estimate"`
	Warnings  []string       `json:"warnings,omitempty"`
}

// runEvalDryRun predicts the chat calls and tokens of the evaluation: it runs the queries as
// the evaluation would, retrieval included (the questions are embedded: with an embedding API,
// those calls are made and cached, and the evaluation needs them anyway), with the stand-in
// model above in place of the chat and judge models.
func runEvalDryRun(c *cli.Context, r evalRun) error {
	est, err := estimateEval(c.Context, r)
	if err != nil {
		return err
	}
	out := evalEstimate{Mode: r.opt.Mode, Questions: len(r.questions), Estimate: est}
	if r.src != nil {
		out.Against = r.src.String()
	}
	if c.Bool(flagJSON) {
		return writeJSON(c, out)
	}
	w := c.App.Writer
	fmt.Fprintf(w, "Dry run: mode %s, %d questions", r.opt.Mode, len(r.questions))
	if r.src != nil {
		fmt.Fprintf(w, ", judged against %s", r.src)
	}
	fmt.Fprintln(w)
	return writeEstimateTable(w, est)
}

// estimateEval is runEvalDryRun's prediction.
func estimateEval(ctx context.Context, r evalRun) (llm.Estimate, error) {
	chat := &probeChat{client: r.m.chat}
	var dry *retrieval.Engine
	if r.engine != nil {
		e := *r.engine
		e.Answerer = answer.New(chat, answer.Options{})
		if r.engine.Mapper != nil {
			e.Mapper = keypoints.Mapper{Chat: chat}
		}
		dry = &e
	}
	gen, err := r.answers(ctx, dry)
	if err != nil {
		return llm.Estimate{}, err
	}
	if r.src != nil {
		pairs, err := r.pairs(ctx, dry, gen)
		if err != nil {
			return llm.Estimate{}, err
		}
		jchat := chat
		if r.judge != r.m.chat {
			jchat = &probeChat{client: r.judge}
		}
		if _, err := eval.JudgePairs(ctx, judgeFunc(jchat), r.src.String(), pairs, 1); err != nil {
			return llm.Estimate{}, err
		}
		if jchat != chat {
			chat.est.Merge(jchat.est)
		}
	}
	est := chat.est
	est.Assumptions = []string{
		"prompt tokens counted in cl100k on the rendered prompts, after retrieval as the run does it",
		fmt.Sprintf("answers not cached %d tokens each, verdicts %d, map batches %d", assumedAnswerTokens, assumedJudgeTokens, assumedMapTokens),
	}
	maps := func(m retrieval.Mode) bool { return m == retrieval.ModeGlobal || m == retrieval.ModeArch }
	if r.engine != nil && r.engine.Mapper != nil && (maps(r.opt.Mode) || (r.src != nil && r.src.file == nil && maps(r.otherOpt.Mode))) {
		est.Assumptions = append(est.Assumptions, "global and arch contexts are sized without the map step's points, which are not generated")
	}
	return est, nil
}
