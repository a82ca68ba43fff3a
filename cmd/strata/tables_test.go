package main

import (
	"strings"
	"testing"

	"github.com/stratarag/strata/internal/llm"
)

func TestTables(t *testing.T) {
	stats := llm.Stats{
		Total: llm.StageUsage{LLMCalls: 5, PromptTokens: 700, CompletionTokens: 70, CacheHits: 2},
		Stages: map[string]llm.StageUsage{
			llm.StageReport:  {LLMCalls: 1, PromptTokens: 100, CompletionTokens: 10},
			"custom":         {CacheHits: 2},
			llm.StageExtract: {LLMCalls: 4, PromptTokens: 600, CompletionTokens: 60},
		},
	}
	var est llm.Estimate
	est.Add(llm.StageEmbed, llm.StageEstimate{Calls: 1, EmbeddingTokens: 300})
	est.Add(llm.StageExtract, llm.StageEstimate{Calls: 3, CachedCalls: 1, PromptTokens: 900, CompletionTokens: 90})
	est.Assumptions = []string{"one answer per chunk"}
	tests := []struct {
		name  string
		write func(*strings.Builder) error
		// rows are the first words of the lines, in order: stages in pipeline order (unknown
		// ones last), then the total.
		rows []string
		// has are texts the table must hold.
		has []string
	}{
		{"usage", func(b *strings.Builder) error { return writeUsageTable(b, stats) },
			[]string{"stage", "extract", "report", "custom", "total"}, []string{"saved tok", " 700 "}},
		{"estimate", func(b *strings.Builder) error { return writeEstimateTable(b, est) },
			[]string{"stage", "extract", "embed", "total", "assumes:"}, []string{"completion tok (est.)", " 900 ", "assumes: one answer per chunk"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			if err := tc.write(&b); err != nil {
				t.Fatal(err)
			}
			var rows []string
			for _, line := range strings.Split(strings.TrimSpace(b.String()), "\n") {
				rows = append(rows, strings.Fields(line)[0])
			}
			if strings.Join(rows, " ") != strings.Join(tc.rows, " ") {
				t.Errorf("rows %v, want %v:\n%s", rows, tc.rows, b.String())
			}
			for _, s := range tc.has {
				if !strings.Contains(b.String(), s) {
					t.Errorf("table lacks %q:\n%s", s, b.String())
				}
			}
		})
	}
}
