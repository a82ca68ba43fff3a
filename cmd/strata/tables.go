package main

import (
	"fmt"
	"io"
	"strings"
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

// perCorpusToken is each chat stage's prompt and completion tokens per corpus token, and their
// "total"; nil when nothing was spent or no corpus token was written.
func perCorpusToken(st llm.Stats, corpusTokens int) map[string]float64 {
	if corpusTokens <= 0 {
		return nil
	}
	out := map[string]float64{}
	total := 0
	for stage, u := range st.Stages {
		if n := u.PromptTokens + u.CompletionTokens; n > 0 {
			out[stage] = float64(n) / float64(corpusTokens)
			total += n
		}
	}
	if total == 0 {
		return nil
	}
	out["total"] = float64(total) / float64(corpusTokens)
	return out
}

// perCorpusTokenLine says perCorpusToken in one line, stages in pipeline order.
func perCorpusTokenLine(r map[string]float64) string {
	if r == nil {
		return ""
	}
	var parts []string
	for _, stage := range llm.SortStages(r) {
		if stage != "total" {
			parts = append(parts, fmt.Sprintf("%s %.2f", stage, r[stage]))
		}
	}
	if len(parts) == 0 {
		return fmt.Sprintf("LLM tokens per corpus token: %.2f", r["total"])
	}
	return fmt.Sprintf("LLM tokens per corpus token: %.2f (%s)", r["total"], strings.Join(parts, ", "))
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
