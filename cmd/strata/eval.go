package main

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/urfave/cli/v2"

	"github.com/stratarag/strata/retrieval"
	"github.com/stratarag/strata/retrieval/eval"
)

// eval's own flags.
const (
	flagQuestions    = "questions"
	flagAnswers      = "answers"
	flagAgainst      = "against"
	flagJudgeModel   = "judge-model"
	flagJudgeBaseURL = "judge-base-url"
	flagJudgeAPIKey  = "judge-api-key"
	flagDryRun       = "dry-run"
	flagSubject      = "subject"
)

func evalCommand() *cli.Command {
	return &cli.Command{
		Name:  "eval",
		Usage: "measure retrieval recall, answer quality, or judged win rates over a questions file",
		Description: "Runs every question of a JSON Lines file ({\"id\", \"question\", \"gold\": [document ids]}) in the\n" +
			"given mode, context only, and prints recall@2/5/10: the share of gold documents among the first k\n" +
			"distinct documents of the ranked context chunks, the mean size of the context text in\n" +
			"cl100k_base tokens, and the mean tokens of each of its sections.\n\n" +
			"--answers generates each answer with the chat model, as strata query does, and scores it against\n" +
			"the question's \"answer\" (a string or a list of aliases): accuracy (the normalised gold answer\n" +
			"contained in the answer), exact_match, f1, rouge_l, bleu_1; with the LLM calls, tokens and\n" +
			"latency of each query. --against SOURCE has a judge model compare this mode's answers with\n" +
			"another mode's (naive, hi, …) or with a JSON Lines file of another system's answers\n" +
			"({\"query\" or \"question\", \"answer\"}, matched by question text) on comprehensiveness,\n" +
			"empowerment, diversity and overall, each pair in both orders, and prints strata's win rates\n" +
			"with 95% Wilson intervals. Answers and verdicts are cached: a re-run makes no chat call.\n" +
			"--dry-run predicts the chat calls and tokens without making any; --max-llm-tokens refuses a run\n" +
			"predicted to spend more, and stops one that does (the same command then resumes from the cache).",
		Flags: commonFlags(append(retrievalFlags(),
			// Checked in runEval, not with Required: urfave/cli prints help on stdout for a
			// missing required flag, which would break --json's one-object promise.
			&cli.StringFlag{Name: flagQuestions, Usage: "questions file (JSON Lines); required"},
			&cli.BoolFlag{Name: flagAnswers, Usage: "generate answers with the chat model and score them against each question's \"answer\""},
			&cli.StringFlag{Name: flagAgainst, Usage: "judge this mode's answers against another mode's, or against a JSON Lines file of another system's answers"},
			&cli.StringFlag{Name: flagSubject, Usage: "judge (or score) the answers of this JSON Lines file in place of this mode's, e.g. one published system against another"},
			&cli.StringFlag{Name: flagJudgeModel, EnvVars: []string{"STRATA_JUDGE_MODEL"}, Category: "Models",
				Usage: "the judge's chat model (default: the chat model, --llm-model)"},
			&cli.StringFlag{Name: flagJudgeBaseURL, EnvVars: []string{"STRATA_JUDGE_BASE_URL"}, Category: "Models",
				Usage: "the judge's OpenAI-compatible endpoint when it is not the chat one (key: --judge-api-key)"},
			&cli.StringFlag{Name: flagJudgeAPIKey, EnvVars: []string{"STRATA_JUDGE_API_KEY"}, Category: "Models",
				Usage: "the key of --judge-base-url (prefer the environment variable over the flag)"},
			&cli.BoolFlag{Name: flagDryRun, Usage: "predict the chat calls and tokens of --answers and --against without making any"},
			budgetFlag(),
			&cli.BoolFlag{Name: flagJSON, Usage: "print the full report (per question) as one JSON object"},
		)...),
		Action: runEval,
	}
}

func runEval(c *cli.Context) error {
	if c.NArg() != 0 {
		return usageError{errors.New("eval takes no arguments; give the file with --questions")}
	}
	if c.String(flagQuestions) == "" {
		return usageError{errors.New("eval needs --questions FILE (JSON Lines of {\"id\", \"question\", \"gold\"})")}
	}
	if _, err := tokenBudget(c); err != nil {
		return err
	}
	if c.Bool(flagAnswers) || c.String(flagAgainst) != "" || c.Bool(flagDryRun) {
		return runAnswerEval(c)
	}
	opt, err := queryOptions(c)
	if err != nil {
		return err
	}
	questions, err := eval.ReadQuestions(c.String(flagQuestions))
	if err != nil {
		return err
	}
	engine, _, closeFn, err := newEngine(c.Context, c, true) // many questions: keep reads resident
	if err != nil {
		return err
	}
	defer closeFn()
	// Recall measured on a half-built graph says little about the finished one: say so.
	if _, err := storeWarnings(c, engine.Store); err != nil {
		return err
	}
	rep, err := eval.Run(c.Context, engine, engine.Tokenizer, questions, opt)
	if err == nil {
		err = engine.Tokenizer.Err()
	}
	if err != nil {
		return err
	}
	if c.Bool(flagJSON) {
		return writeJSON(c, rep)
	}
	w := c.App.Writer
	fmt.Fprintf(w, "mode %s, %d questions, %.1f ms per query, %.0f context tokens per query\n", rep.Mode, rep.Questions, rep.MeanMS, rep.MeanContextTokens)
	for _, k := range eval.Ks {
		key := fmt.Sprintf("recall@%d", k)
		fmt.Fprintf(w, "  %-10s %.3f\n", key, rep.Recall[key])
	}
	sections := slices.Sorted(maps.Keys(rep.MeanSectionTokens))
	slices.SortStableFunc(sections, func(a, b string) int { return cmp.Compare(rep.MeanSectionTokens[b], rep.MeanSectionTokens[a]) })
	for _, s := range sections {
		fmt.Fprintf(w, "  %-26s %.0f tokens\n", s, rep.MeanSectionTokens[s])
	}
	return nil
}

// againstSource is what --against names: another mode, or a file of another system's answers.
type againstSource struct {
	mode retrieval.Mode
	file *answerFile // nil for a mode
}

func (s againstSource) String() string {
	if s.file != nil {
		return s.file.path
	}
	return s.mode.String()
}
