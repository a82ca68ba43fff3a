package main

import (
	"fmt"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/stratarag/strata/pipeline"
)

// runDryRun prints what ingesting the inputs would take (pipeline.Ingester.Estimate), without
// calling a model or writing the store (in.Store is the store opened read-only when one exists,
// else nil).
func runDryRun(c *cli.Context, in *pipeline.Ingester) error {
	est, err := in.Estimate(c.Context, c.Args().Slice())
	if err != nil {
		return err
	}
	if c.Bool(flagJSON) {
		return writeJSON(c, est)
	}
	w := c.App.Writer
	fmt.Fprintf(w, "Dry run: %d documents, %d chunks, %d corpus tokens, %d inputs skipped, %d ignored\n", est.Documents, est.Chunks, est.CorpusTokens, len(est.Problems), len(est.Ignored))
	if in.Store != nil {
		fmt.Fprintf(w, "Against the store: %d documents unchanged, %d chunks to extract (%d tokens)\n", est.Unchanged, est.ExtractChunks, est.ExtractTokens)
	}
	if est.Offline {
		fmt.Fprintln(w, "Offline: ingesting makes no LLM calls.")
		return nil
	}
	if err := writeEstimateTable(w, est.LLM); err != nil {
		return err
	}
	per := map[string]float64{"total": est.TokensPerCorpusToken}
	for stage, s := range est.LLM.Stages {
		if n := s.PromptTokens + s.CompletionTokens; n > 0 && est.ExtractTokens > 0 {
			per[stage] = float64(n) / float64(est.ExtractTokens)
		}
	}
	fmt.Fprintln(w, perCorpusTokenLine(per))
	return nil
}

// fileExists reports whether path names an existing file.
func fileExists(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}
