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

// TestPerCorpusToken: each chat stage's tokens per corpus token, their total, and the line the
// console prints, stages in pipeline order.
func TestPerCorpusToken(t *testing.T) {
	stats := llm.Stats{Stages: map[string]llm.StageUsage{
		llm.StageReport:  {PromptTokens: 150, CompletionTokens: 50},
		llm.StageEmbed:   {EmbeddingTokens: 900}, // not chat: left out
		llm.StageExtract: {PromptTokens: 300, CompletionTokens: 100},
	}}
	tests := []struct {
		name   string
		st     llm.Stats
		corpus int
		want   map[string]float64
		line   string
	}{
		{"spent", stats, 200, map[string]float64{llm.StageExtract: 2, llm.StageReport: 1, "total": 3},
			"LLM tokens per corpus token: 3.00 (extract 2.00, report 1.00)"},
		{"no corpus written", stats, 0, nil, ""},
		{"nothing spent", llm.Stats{Stages: map[string]llm.StageUsage{llm.StageEmbed: {EmbeddingTokens: 5}}}, 100, nil, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := perCorpusToken(tc.st, tc.corpus)
			if len(got) != len(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			for k, v := range tc.want {
				if got[k] != v {
					t.Errorf("%s: %v, want %v", k, got[k], v)
				}
			}
			if line := perCorpusTokenLine(got); line != tc.line {
				t.Errorf("line %q, want %q", line, tc.line)
			}
		})
	}
	if line := perCorpusTokenLine(map[string]float64{"total": 0}); line != "LLM tokens per corpus token: 0.00" {
		t.Errorf("no stage: %q", line)
	}
}
