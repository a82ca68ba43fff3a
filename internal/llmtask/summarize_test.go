package llmtask

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stratarag/strata/internal/llm"
	"github.com/stratarag/strata/internal/llm/fakeopenai"
)

func TestSummarizer(t *testing.T) {
	c, s := fake(t, fakeopenai.Options{})
	sum, err := NewSummarizer(c, SummarizerOptions{MaxWords: 60})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	got, err := sum.Summarize(ctx, "Ilsa Marrow", []string{" Founder of the guild. ", "Founder of the guild."})
	if err != nil || got != "Founder of the guild." || s.Counts().Chat != 0 {
		t.Errorf("single distinct description: %q, %v, %d calls", got, err, s.Counts().Chat)
	}

	got, err = sum.Summarize(ctx, "Ilsa Marrow", []string{"Ilsa Marrow founded the guild in 1102.", "She led the guild until 1124."})
	if err != nil || !strings.Contains(got, "founded the guild") || s.Counts().Chat != 1 {
		t.Errorf("merge: %q, %v, %d calls", got, err, s.Counts().Chat)
	}
	if st := c.Stats().Stages[llm.StageSummarize]; st.LLMCalls != 1 {
		t.Errorf("summarize stage %+v", st)
	}

	if got, err := sum.Summarize(ctx, "x", nil); got != "" || err != nil {
		t.Errorf("no descriptions: %q %v", got, err)
	}
}

func TestSummarizerGroupsLongInput(t *testing.T) {
	c, s := fake(t, fakeopenai.Options{})
	sum, err := NewSummarizer(c, SummarizerOptions{MaxWords: 20, MaxInputTokens: 40})
	if err != nil {
		t.Fatal(err)
	}
	var descs []string
	for i := range 6 {
		descs = append(descs, fmt.Sprintf("Ilsa Marrow met Corvin Hale in Port Avel in year %d. The Harbour Guild paid Corvin Hale.", 1100+i))
	}
	got, err := sum.Summarize(context.Background(), "Corvin Hale", descs)
	if err != nil || got == "" {
		t.Fatalf("%q %v", got, err)
	}
	if n := s.Counts().Chat; n < 3 {
		t.Errorf("%d calls; want group summaries and a final merge", n)
	}
	if len(strings.Fields(got)) > 21 {
		t.Errorf("summary longer than the limit: %q", got)
	}
}
