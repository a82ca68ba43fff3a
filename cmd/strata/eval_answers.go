package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/rs/zerolog"
	"github.com/urfave/cli/v2"

	"github.com/stratarag/strata/internal/llm"
	"github.com/stratarag/strata/internal/llmtask/pairjudge"
	"github.com/stratarag/strata/retrieval"
	"github.com/stratarag/strata/retrieval/eval"
)

// evalOutput is eval's --json object with --answers or --against: what each produced, what the
// model calls cost, and, as for ingest, the stages whose answers the model could not give in
// the format asked for.
type evalOutput struct {
	Mode      retrieval.Mode     `json:"mode"`
	Questions int                `json:"questions"`
	Answers   *eval.AnswerReport `json:"answers,omitempty"`
	Judge     *judgeOutput       `json:"judge,omitempty"`
	Usage     retrieval.Usage    `json:"usage"`
	LLM       llm.Stats          `json:"llm"`
	Malformed malformedByStage   `json:"malformed_answers"`
	Unusable  []string           `json:"unusable_stages"`
	Warnings  []string           `json:"warnings,omitempty"`
	Error     string             `json:"error,omitempty"`
	Code      int                `json:"code,omitempty"`
}

// judgeOutput is the judge object: the tally and the judge model.
type judgeOutput struct {
	Model string `json:"model"`
	*eval.JudgeReport
}

// runAnswerEval runs eval with --answers, --against or --dry-run.
func runAnswerEval(c *cli.Context) error {
	if !c.Bool(flagAnswers) && c.String(flagAgainst) == "" {
		return usageError{fmt.Errorf("--%s predicts the calls of --%s and --%s: give one or both", flagDryRun, flagAnswers, flagAgainst)}
	}
	opt, err := queryOptions(c)
	if err != nil {
		return err
	}
	path := c.String(flagQuestions)
	need := eval.Need(0)
	if c.Bool(flagAnswers) {
		need |= eval.NeedAnswer
	}
	questions, err := eval.ReadFor(path, need)
	if errors.Is(err, eval.ErrNoAnswer) {
		return usageError{fmt.Errorf("--%s scores answers against gold ones, and %s lacks them: %w", flagAnswers, path, err)}
	}
	if err != nil {
		return err
	}
	src, otherOpt, err := parseAgainst(c, opt, questions)
	if err != nil {
		return err
	}
	log, err := newLogger(c)
	if err != nil {
		return err
	}
	engine, m, closeFn, err := newEngine(c, true) // many questions: keep reads resident
	if err != nil {
		return err
	}
	defer closeFn()
	if m.chat == nil {
		return usageError{errors.New("eval --answers and --against answer with the chat model: set OPENAI_API_KEY or OPENAI_BASE_URL, without --offline")}
	}
	var judge *llm.Client
	if src != nil {
		if judge, err = judgeClient(c, m.chat, log); err != nil {
			return err
		}
	}
	warnings, err := storeWarnings(c, engine.Store)
	if err != nil {
		return err
	}
	if c.Bool(flagDryRun) {
		return runEvalDryRun(c, engine, m, judge, questions, opt, src, otherOpt)
	}
	if limit, _ := tokenBudget(c); limit > 0 {
		// As ingest does: a run the budget would stop half-way is refused before any chat call.
		est, err := estimateEval(c.Context, engine, m, judge, questions, opt, src, otherOpt)
		if err != nil {
			return fmt.Errorf("predict the run's LLM tokens (--%s): %w", flagMaxLLMTokens, err)
		}
		if err := refuseOverBudget("eval", est, limit, log); err != nil {
			return err
		}
	}

	out := evalOutput{Mode: opt.Mode, Questions: len(questions), Warnings: warnings}
	gen, err := eval.Generate(c.Context, engine, questions, opt)
	if err == nil {
		err = engine.Tokenizer.Err()
	}
	if err != nil {
		return err
	}
	if c.Bool(flagAnswers) {
		rep := eval.ScoreAnswers(opt.Mode, questions, gen)
		out.Answers = &rep
	}
	if src != nil {
		pairs, err := evalPairs(c.Context, engine, questions, gen, src, otherOpt)
		if err != nil {
			return err
		}
		jrep, err := eval.JudgePairs(c.Context, judgeFunc(judge), src.String(), pairs, judge.Config().Concurrency)
		if err != nil {
			return err
		}
		out.Judge = &judgeOutput{Model: judge.Config().ChatModel, JudgeReport: &jrep}
	}
	out.finish(m.client, judge, gen)
	return writeEvalOutput(c, out)
}

// parseAgainst reads --against: a mode other than this one (with the options its answers are
// generated with: its defaults, and --top-k and --max-context-tokens when given), or a file of
// another system's answers that has one for every question. nil without --against.
func parseAgainst(c *cli.Context, opt retrieval.Options, questions []eval.Question) (*againstSource, retrieval.Options, error) {
	v := c.String(flagAgainst)
	if v == "" {
		return nil, opt, nil
	}
	if mode, err := retrieval.ParseMode(v); err == nil {
		if mode == opt.Mode {
			return nil, opt, usageError{fmt.Errorf("--%s %s is the mode evaluated (--mode): name another mode or a file of answers", flagAgainst, v)}
		}
		other := retrieval.DefaultOptions(mode)
		if c.IsSet("top-k") {
			other.TopK = opt.TopK
		}
		if c.IsSet("max-context-tokens") {
			other.MaxContextTokens = opt.MaxContextTokens
		}
		if err := other.Validate(); err != nil {
			return nil, opt, usageError{fmt.Errorf("--%s %s: %w", flagAgainst, v, err)}
		}
		return &againstSource{mode: mode}, other, nil
	}
	if fi, err := os.Stat(v); err != nil || fi.IsDir() {
		names := make([]string, 0, len(retrieval.Modes()))
		for _, m := range retrieval.Modes() {
			names = append(names, m.String())
		}
		return nil, opt, usageError{fmt.Errorf("--%s %q is neither a mode (%s) nor a file of answers", flagAgainst, v, strings.Join(names, ", "))}
	}
	lines, err := eval.ReadFor(v, 0)
	if err != nil {
		return nil, opt, fmt.Errorf("--%s: %w", flagAgainst, err)
	}
	src := &againstSource{file: v, answers: map[string]string{}}
	for _, l := range lines {
		src.answers[questionKey(l.Question)] = strings.Join(l.Answer, "\n")
	}
	for _, q := range questions {
		if _, ok := src.answers[questionKey(q.Question)]; !ok {
			return nil, opt, usageError{fmt.Errorf("--%s %s has no answer to question %s (%q): its questions are matched by their text", flagAgainst, v, q.ID, q.Question)}
		}
	}
	return src, opt, nil
}

// questionKey is a question's text as --against files are matched by: white space collapsed.
func questionKey(q string) string { return strings.Join(strings.Fields(q), " ") }

// judgeClient is the judge's client: the chat client itself, or one of its own when
// --judge-model or --judge-base-url names another model or endpoint. It shares the chat
// client's cache, limits and time-outs; another endpoint gets only --judge-api-key, never the
// chat key.
func judgeClient(c *cli.Context, chat *llm.Client, log zerolog.Logger) (*llm.Client, error) {
	model, base := c.String(flagJudgeModel), c.String(flagJudgeBaseURL)
	cfg := chat.Config()
	if (model == "" || model == cfg.ChatModel) && base == "" {
		return chat, nil
	}
	if c.IsSet(flagJudgeAPIKey) && base == "" {
		return nil, usageError{fmt.Errorf("--%s goes with --%s: the chat endpoint has its key", flagJudgeAPIKey, flagJudgeBaseURL)}
	}
	if model != "" {
		cfg.ChatModel = model
	}
	if base != "" {
		cfg.BaseURL, cfg.APIKey = base, c.String(flagJudgeAPIKey)
	}
	cfg.EmbeddingBaseURL, cfg.EmbeddingAPIKey = "", ""
	// Another model has another window: the server says it where it can, and the client learns
	// it from the first overflow otherwise.
	cfg.ContextWindow = 0
	if info, err := llm.Probe(c.Context, cfg.BaseURL, cfg.APIKey); err == nil && info.ContextWindow > 0 {
		cfg.ContextWindow = info.ContextWindow
	}
	judge, err := llm.New(cfg)
	if err != nil {
		return nil, usageError{fmt.Errorf("judge model: %w", err)}
	}
	log.Info().Str("llm", judge.Config().String()).Msg("the judge's OpenAI-compatible API")
	return judge, nil
}

// judgeFunc adapts the comparison task to eval's judge.
func judgeFunc(chat llm.Chatter) eval.JudgeFunc {
	return func(ctx context.Context, question, first, second string) (map[string]eval.Preference, error) {
		v, err := pairjudge.Judge(ctx, chat, question, first, second, pairjudge.Options{})
		out := map[string]eval.Preference{}
		for d, w := range v {
			switch w {
			case pairjudge.WinnerA:
				out[d] = eval.PreferFirst
			case pairjudge.WinnerB:
				out[d] = eval.PreferSecond
			case pairjudge.Tie:
				out[d] = eval.PreferNeither
			}
		}
		return out, err
	}
}

// evalPairs pairs this mode's answers with the other side's: the other mode's, generated the
// same way, or the file's.
func evalPairs(ctx context.Context, engine *retrieval.Engine, questions []eval.Question, gen []eval.Generated, src *againstSource, otherOpt retrieval.Options) ([]eval.Pair, error) {
	other := make([]string, len(questions))
	if src.file == "" {
		og, err := eval.Generate(ctx, engine, questions, otherOpt)
		if err != nil {
			return nil, fmt.Errorf("answers in mode %s: %w", otherOpt.Mode, err)
		}
		for i, g := range og {
			other[i] = g.Answer
		}
	} else {
		for i, q := range questions {
			other[i] = src.answers[questionKey(q.Question)]
		}
	}
	pairs := make([]eval.Pair, len(questions))
	for i, q := range questions {
		pairs[i] = eval.Pair{ID: q.ID, Question: q.Question, Strata: gen[i].Answer, Other: other[i]}
	}
	return pairs, nil
}

// finish fills in the usage (both clients, when the judge has its own), the damaged answers per
// stage and the stages the model could not do. The answer task parses no format, so its
// unreadable answers (nothing left once reasoning is removed) are counted here, by the same
// rule as the judged stages.
func (out *evalOutput) finish(chat, judge *llm.Client, gen []eval.Generated) {
	stats := chat.Stats()
	if judge != nil && judge != chat {
		js := judge.Stats()
		for name, u := range js.Stages {
			s := stats.Stages[name]
			addUsage(&s, u)
			stats.Stages[name] = s
		}
		addUsage(&stats.Total, js.Total)
	}
	unreadable := 0
	for _, g := range gen {
		if g.Unreadable {
			unreadable++
		}
	}
	if unreadable > 0 {
		s := stats.Stages[llm.StageAnswer]
		s.Unreadable += unreadable
		stats.Stages[llm.StageAnswer] = s
		stats.Total.Unreadable += unreadable
	}
	t := stats.Total
	out.LLM = stats
	out.Usage = retrieval.Usage{LLMCalls: t.LLMCalls, PromptTokens: t.PromptTokens, CompletionTokens: t.CompletionTokens, EmbeddingCalls: t.EmbeddingCalls}
	out.Malformed = malformedAnswers(&stats)
	out.Unusable = unusableStages(&stats)
}

// addUsage adds the counts of o to s (llm.StageUsage's own add is the client's).
func addUsage(s *llm.StageUsage, o llm.StageUsage) {
	s.LLMCalls += o.LLMCalls
	s.PromptTokens += o.PromptTokens
	s.CompletionTokens += o.CompletionTokens
	s.EmbeddingCalls += o.EmbeddingCalls
	s.EmbeddingTokens += o.EmbeddingTokens
	s.CacheHits += o.CacheHits
	s.SavedTokens += o.SavedTokens
	s.Retries += o.Retries
	s.Failures += o.Failures
	s.FailedTokens += o.FailedTokens
	s.Truncated += o.Truncated
	s.Salvaged += o.Salvaged
	s.Unreadable += o.Unreadable
	s.DroppedRecords += o.DroppedRecords
}

// describeEvalUnusable says which stages of an evaluation the models could not do, and what to
// try; "" when there are none.
func describeEvalUnusable(st llm.Stats, stages []string) string {
	if len(stages) == 0 {
		return ""
	}
	var parts []string
	for _, name := range stages {
		u := st.Stages[name]
		what := "the " + name + " stage got nothing from it"
		switch name {
		case pairjudge.Stage:
			what = "the win rates rest on the verdicts left"
		case llm.StageAnswer:
			what = "those questions score 0"
		}
		parts = append(parts, fmt.Sprintf("%d of %d %s answers (%.0f%%) were unreadable, so %s",
			u.Unreadable, answers(u), name, 100*float64(u.Unreadable)/float64(max(1, answers(u))), what))
	}
	return fmt.Sprintf("the model cannot follow strata's answer format: %s; try a larger or instruction-tuned model (--%s for the judge), or a server with structured output (JSON mode)",
		strings.Join(parts, "; "), flagJudgeModel)
}

// writeEvalOutput prints the report, and returns exit 3's error when a stage was unusable.
func writeEvalOutput(c *cli.Context, out evalOutput) error {
	var partial error
	if line := describeEvalUnusable(out.LLM, out.Unusable); line != "" {
		partial = partialError{errors.New(line)}
		out.Error, out.Code = partial.Error(), exitPartial
	}
	if c.Bool(flagJSON) {
		if err := writeJSON(c, out); err != nil {
			return err
		}
		return partial
	}
	writeEvalText(c.App.Writer, out)
	return partial
}

func writeEvalText(w io.Writer, out evalOutput) {
	fmt.Fprintf(w, "mode %s, %d questions\n", out.Mode, out.Questions)
	if a := out.Answers; a != nil {
		fmt.Fprintf(w, "answers: accuracy %.3f, exact_match %.3f, f1 %.3f, rouge_l %.3f, bleu_1 %.3f", a.Accuracy, a.ExactMatch, a.F1, a.RougeL, a.BLEU1)
		if a.Unreadable > 0 {
			fmt.Fprintf(w, " (%d unreadable, scored 0)", a.Unreadable)
		}
		fmt.Fprintln(w)
		fmt.Fprintf(w, "  per query: %.1f LLM calls, %.0f prompt and %.0f completion tokens; latency p50 %.0f ms, p95 %.0f ms\n",
			a.MeanLLMCalls, a.MeanPromptTokens, a.MeanCompletionTokens, a.LatencyMS.P50, a.LatencyMS.P95)
	}
	if j := out.Judge; j != nil {
		fmt.Fprintf(w, "judged against %s by %s: %d verdicts read, %d unreadable; strata's win rate (ties as half), 95%% Wilson interval\n",
			j.Against, j.Model, j.Judgments, j.Unreadable)
		for _, d := range eval.Dimensions {
			r, ok := j.WinRates[d]
			if !ok {
				fmt.Fprintf(w, "  %-18s no verdict read\n", d)
				continue
			}
			iv := j.Intervals[d]
			fmt.Fprintf(w, "  %-18s %.3f  [%.3f, %.3f]  %d ties of %d\n", d, r, iv[0], iv[1], j.Ties[d], j.Counted[d])
		}
	}
	fmt.Fprintf(w, "usage: %d LLM calls (%d prompt, %d completion tokens), %d embedding calls\n",
		out.Usage.LLMCalls, out.Usage.PromptTokens, out.Usage.CompletionTokens, out.Usage.EmbeddingCalls)
}
