package layers_test

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/llm"
	"github.com/stratarag/strata/internal/llm/fakeopenai"
	"github.com/stratarag/strata/internal/tokenizer"
	"github.com/stratarag/strata/pipeline/layers"
	"github.com/stratarag/strata/prompts"
)

// TestLLMSummarizer: the model's summary entities are used; an unreadable answer gets the
// extractive summary instead; an API error fails.
func TestLLMSummarizer(t *testing.T) {
	ctx := context.Background()
	members := []graph.Entity{
		{ID: "ILSA MARROW", Name: "Ilsa Marrow", Type: "person", Description: "Founder of the Saltmere Guild.", Degree: 2},
		{ID: "CORVIN HALE", Name: "Corvin Hale", Type: "person", Description: "Surveyor for the Saltmere Guild.", Degree: 1},
	}
	extractive, err := layers.Extractive{}.Summarize(ctx, members)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := tokenizer.New()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name           string
		opts           fakeopenai.Options
		wantExtractive bool
		wantErr        bool
	}{
		{"model summary", fakeopenai.Options{}, false, false},
		{"unreadable answer falls back", fakeopenai.Options{UnreadableRate: 1}, true, false},
		{"API error fails", fakeopenai.Options{ServerErrorRate: 1}, false, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, s, err := fakeopenai.Start(tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			c, err := llm.New(llm.Config{BaseURL: srv.URL, APIKey: "k", MaxRetries: 1,
				RetryBaseDelay: time.Millisecond, RetryMaxDelay: time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			got, err := (&layers.LLM{Chat: c, Prompts: prompts.New(), Tokenizer: tok}).Summarize(ctx, members)
			if tc.wantErr {
				if err == nil || errors.Is(err, prompts.ErrUnreadable) {
					t.Fatalf("err = %v, want an API error", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) == 0 || reflect.DeepEqual(got, extractive) != tc.wantExtractive {
				t.Errorf("summaries %+v, want extractive: %v", got, tc.wantExtractive)
			}
			if n := s.Counts().ByTask[prompts.TaskSummaryEntity]; n != 1 {
				t.Errorf("%d summary-entity calls, want 1", n)
			}
		})
	}
}
