package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/stratarag/strata/internal/llm"
)

// writeUsageTable prints what the LLM client spent: one row per stage, in pipeline order, and a
// total row.
func writeUsageTable(w io.Writer, s llm.Stats) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "stage\tcalls\tcached\tretries\tfailed\tprompt tok\tcompletion tok\tembed calls\tembed tok\tsaved tok\t")
	row := func(name string, u llm.StageUsage) {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t\n", name, u.LLMCalls, u.CacheHits, u.Retries,
			u.Failures, u.PromptTokens, u.CompletionTokens, u.EmbeddingCalls, u.EmbeddingTokens, u.SavedTokens)
	}
	for _, name := range s.StageNames() {
		row(name, s.Stages[name])
	}
	row("total", s.Total)
	return tw.Flush()
}

// writeEstimateTable prints a dry run's estimate: one row per stage, in pipeline order, a total
// row and the assumptions the numbers rest on.
func writeEstimateTable(w io.Writer, e llm.Estimate) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "stage\tcalls\tcached\tprompt tok\tcompletion tok (est.)\tembed tok\t")
	row := func(name string, s llm.StageEstimate) {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t\n", name, s.Calls, s.CachedCalls, s.PromptTokens, s.CompletionTokens, s.EmbeddingTokens)
	}
	for _, name := range e.StageNames() {
		row(name, e.Stages[name])
	}
	row("total", e.Total())
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, a := range e.Assumptions {
		if _, err := fmt.Fprintln(w, "  assumes:", a); err != nil {
			return err
		}
	}
	return nil
}
