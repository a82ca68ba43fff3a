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
	Subject   string             `json:"subject,omitempty"` // --subject: the file whose answers were judged
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

// evalRun is what an answer evaluation works with.
type evalRun struct {
	questions []eval.Question
	opt       retrieval.Options
	engine    *retrieval.Engine // nil when no answer is generated (--subject against a file)
	m         *models
	judge     *llm.Client       // nil without --against
	src       *againstSource    // nil without --against
	otherOpt  retrieval.Options // the other mode's, when src is one
	subject   *answerFile       // --subject: the answers judged, in place of this mode's
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
	r := evalRun{opt: opt}
	r.questions, err = eval.ReadFor(path, need)
	if errors.Is(err, eval.ErrNoAnswer) {
		return usageError{fmt.Errorf("--%s scores answers against gold ones, and %s lacks them: %w", flagAnswers, path, err)}
	}
	if err != nil {
		return err
	}
	if r.src, r.otherOpt, err = parseAgainst(c, opt, r.questions); err != nil {
		return err
	}
	if v := c.String(flagSubject); v != "" {
		if r.subject, err = readAnswerFile(flagSubject, v, r.questions); err != nil {
			return err
		}
	}
	log, err := newLogger(c)
	if err != nil {
		return err
	}
	var warnings []string
	if r.subject == nil || (r.src != nil && r.src.file == nil) {
		var closeFn func()
		r.engine, r.m, closeFn, err = newEngine(c.Context, c, true) // many questions: keep reads resident
		if err != nil {
			return err
		}
		defer closeFn()
		if warnings, err = storeWarnings(c, r.engine.Store); err != nil {
			return err
		}
	} else if r.m, err = setupModels(c, log); err != nil { // two files: no store is read
		return err
	}
	if r.m.chat == nil {
		return usageError{errors.New("eval --answers and --against answer and judge with the chat model: set OPENAI_API_KEY or OPENAI_BASE_URL, without --offline")}
	}
	if r.src != nil {
		if r.judge, err = judgeClient(c, r.m.chat, log); err != nil {
			return err
		}
	}
	if c.Bool(flagDryRun) {
		return runEvalDryRun(c, r)
	}
	if limit, _ := tokenBudget(c); limit > 0 {
		// As ingest does: a run the budget would stop half-way is refused before any chat call.
		est, err := estimateEval(c.Context, r)
		if err != nil {
			return fmt.Errorf("predict the run's LLM tokens (--%s): %w", flagMaxLLMTokens, err)
		}
		if err := refuseOverBudget("eval", est, limit, log); err != nil {
			return err
		}
	}

	out := evalOutput{Mode: opt.Mode, Questions: len(r.questions), Warnings: warnings}
	if r.subject != nil {
		out.Subject = r.subject.path
	}
	gen, err := r.answers(c.Context, r.engine)
	if err != nil {
		return err
	}
	if c.Bool(flagAnswers) {
		rep := eval.ScoreAnswers(opt.Mode, r.questions, gen)
		out.Answers = &rep
	}
	if r.src != nil {
		pairs, err := r.pairs(c.Context, r.engine, gen)
		if err != nil {
			return err
		}
		jrep, err := eval.JudgePairs(c.Context, judgeFunc(r.judge), r.src.String(), pairs, r.judge.Config().Concurrency)
		if err != nil {
			return err
		}
		out.Judge = &judgeOutput{Model: r.judge.Config().ChatModel, JudgeReport: &jrep}
	}
	out.finish(r.m.client, r.judge, gen)
	return writeEvalOutput(c, out)
}

// answers generates this side's answers with engine, or takes them from --subject.
func (r *evalRun) answers(ctx context.Context, engine *retrieval.Engine) ([]eval.Generated, error) {
	if r.subject == nil {
		gen, err := eval.Generate(ctx, engine, r.questions, r.opt)
		if err == nil {
			err = engine.Tokenizer.Err()
		}
		return gen, err
	}
	gen := make([]eval.Generated, len(r.questions))
	for i, q := range r.questions {
		gen[i] = eval.Generated{ID: q.ID, Question: q.Question, Answer: r.subject.answer(q)}
	}
	return gen, nil
}

// answerFile is a JSON Lines file of another system's answers ({"query" or "question",
// "answer"}), read by question text.
type answerFile struct {
	path    string
	answers map[string]string // questionKey → answer
}

func (f *answerFile) answer(q eval.Question) string { return f.answers[questionKey(q.Question)] }

// readAnswerFile reads the answer file path given with --flag, which must answer every
// question.
func readAnswerFile(flag, path string, questions []eval.Question) (*answerFile, error) {
	if fi, err := os.Stat(path); err != nil || fi.IsDir() {
		return nil, usageError{fmt.Errorf("--%s %q: not a file of answers", flag, path)}
	}
	lines, err := eval.ReadFor(path, 0)
	if err != nil {
		return nil, fmt.Errorf("--%s: %w", flag, err)
	}
	f := &answerFile{path: path, answers: map[string]string{}}
	for _, l := range lines {
		f.answers[questionKey(l.Question)] = strings.Join(l.Answer, "\n")
	}
	for _, q := range questions {
		if _, ok := f.answers[questionKey(q.Question)]; !ok {
			return nil, usageError{fmt.Errorf("--%s %s has no answer to question %s (%q): its questions are matched by their text", flag, path, q.ID, q.Question)}
		}
	}
	return f, nil
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
	f, err := readAnswerFile(flagAgainst, v, questions)
	if err != nil {
		return nil, opt, err
	}
	return &againstSource{file: f}, opt, nil
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
		log.Warn().Str("flag", "--"+flagJudgeAPIKey).Msg("ignored without --" + flagJudgeBaseURL + ": the judge uses the chat endpoint and its key")
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

// pairs pairs this side's answers with the other side's: the other mode's, generated with
// engine as this mode's are, or the file's.
func (r *evalRun) pairs(ctx context.Context, engine *retrieval.Engine, gen []eval.Generated) ([]eval.Pair, error) {
	other := make([]string, len(r.questions))
	if r.src.file == nil {
		og, err := eval.Generate(ctx, engine, r.questions, r.otherOpt)
		if err != nil {
			return nil, fmt.Errorf("answers in mode %s: %w", r.otherOpt.Mode, err)
		}
		for i, g := range og {
			other[i] = g.Answer
		}
	} else {
		for i, q := range r.questions {
			other[i] = r.src.file.answer(q)
		}
	}
	pairs := make([]eval.Pair, len(r.questions))
	for i, q := range r.questions {
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
			s.Add(u)
			stats.Stages[name] = s
		}
		stats.Total.Add(js.Total)
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
