package main

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/urfave/cli/v2"

	"github.com/stratarag/strata/retrieval/eval"
)

func evalCommand() *cli.Command {
	return &cli.Command{
		Name:  "eval",
		Usage: "measure retrieval recall of gold documents over a questions file",
		Description: "Runs every question of a JSON Lines file ({\"id\", \"question\", \"gold\": [document ids]}) in the\n" +
			"given mode, context only, and prints recall@2/5/10: the share of gold documents among the first k\n" +
			"distinct documents of the ranked context chunks, the mean size of the context text in\n" +
			"cl100k_base tokens, and the mean tokens of each of its sections.",
		Flags: commonFlags(append(retrievalFlags(),
			// Checked in runEval, not with Required: urfave/cli prints help on stdout for a
			// missing required flag, which would break --json's one-object promise.
			&cli.StringFlag{Name: "questions", Usage: "questions file (JSON Lines); required"},
			&cli.BoolFlag{Name: flagJSON, Usage: "print the full report (per question) as one JSON object"},
		)...),
		Action: runEval,
	}
}

func runEval(c *cli.Context) error {
	if c.NArg() != 0 {
		return usageError{errors.New("eval takes no arguments; give the file with --questions")}
	}
	if c.String("questions") == "" {
		return usageError{errors.New("eval needs --questions FILE (JSON Lines of {\"id\", \"question\", \"gold\"})")}
	}
	opt, err := queryOptions(c)
	if err != nil {
		return err
	}
	questions, err := eval.ReadQuestions(c.String("questions"))
	if err != nil {
		return err
	}
	engine, _, closeFn, err := newEngine(c, true) // many questions: keep reads resident
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
