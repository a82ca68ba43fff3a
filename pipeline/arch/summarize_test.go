package arch_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/stratarag/strata/internal/llm"
	"github.com/stratarag/strata/internal/tokenizer"
	"github.com/stratarag/strata/pipeline/arch"
)

// cannedChat answers every request with one answer, or fails, and keeps the last request.
type cannedChat struct {
	answer string
	err    error
	last   *llm.ChatRequest
}

func (c cannedChat) Chat(_ context.Context, req llm.ChatRequest) (llm.ChatResponse, error) {
	if c.last != nil {
		*c.last = req
	}
	return llm.ChatResponse{Content: c.answer}, c.err
}

// TestLLMSummarizer: the model's title and summary are used; an unreadable answer gets the
// extractive summary; an API error fails.
func TestLLMSummarizer(t *testing.T) {
	ctx := context.Background()
	members := []arch.Member{
		{ID: "ILSA MARROW", Name: "Ilsa Marrow", Type: "person", Description: "Founder of the Saltmere Guild. Born in Vell.", Links: 3},
		{ID: "CORVIN HALE", Name: "Corvin Hale", Type: "person", Description: "Surveyor for the Saltmere Guild.", Links: 1},
	}
	extractive, err := arch.Extractive{}.Summarize(ctx, 1, members)
	if err != nil {
		t.Fatal(err)
	}
	if extractive.Title != "Ilsa Marrow, Corvin Hale" || !strings.Contains(extractive.Summary, "Founder of the Saltmere Guild.") ||
		strings.Contains(extractive.Summary, "Born in Vell") {
		t.Errorf("extractive summary %+v: want the members' names and first sentences", extractive)
	}
	tok, err := tokenizer.New()
	if err != nil {
		t.Fatal(err)
	}
	errAPI := errors.New("status 503: overloaded")
	tests := []struct {
		name    string
		chat    cannedChat
		want    arch.Summary
		wantErr error
	}{
		{"model summary", cannedChat{answer: "TITLE: Guild founders\nSUMMARY: Ilsa Marrow and Corvin Hale built the Saltmere Guild."},
			arch.Summary{Title: "Guild founders", Summary: "Ilsa Marrow and Corvin Hale built the Saltmere Guild."}, nil},
		{"unreadable answer falls back", cannedChat{answer: "<think>Let me see who"}, extractive, nil},
		{"API error fails", cannedChat{err: errAPI}, arch.Summary{}, errAPI},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var req llm.ChatRequest
			tc.chat.last = &req
			got, err := (&arch.LLM{Chat: tc.chat, Tokenizer: tok}).Summarize(ctx, 1, members)
			if !errors.Is(err, tc.wantErr) || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v, %v; want %+v, %v", got, err, tc.want, tc.wantErr)
			}
			if req.Stage != llm.StageArch || !strings.Contains(req.Messages[1].Content, "Ilsa Marrow (person): Founder") {
				t.Errorf("request stage %q, user message %q: want stage %q and the members listed", req.Stage, req.Messages[1].Content, llm.StageArch)
			}
		})
	}
}

func TestOptions(t *testing.T) {
	if err := arch.DefaultOptions().Validate(); err != nil {
		t.Errorf("defaults: %v", err)
	}
	if s := (arch.Options{}).String(); s != "off" {
		t.Errorf("off: %q", s)
	}
	bad := arch.DefaultOptions()
	bad.K = 0
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "neighbours") {
		t.Errorf("K 0: %v, want an error naming the neighbours", err)
	}
}
