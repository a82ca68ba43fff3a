package answer

import (
	"context"
	"github.com/stratarag/strata/internal/llmtask/tasktest"
	"testing"

	"github.com/stratarag/strata/internal/llm"
)

const contextText = `-----Sources-----
[doc:guild chunk:c1] Saltmere Cartographers' Guild
Ilsa Marrow founded the Saltmere Cartographers' Guild in 1102.
[doc:port chunk:c2] Port Avel
Port Avel is a harbour town on the inner channels.
[doc:charter.pdf pp.3-4 chunk:c3] Guild charter
The charter of 1102 names Ilsa Marrow first master.`

// TestGeneratorAnswerNotes: the Generator passes on what the answer task found, the token limit
// and the made-up citations, for the engine's answer notes.
func TestGeneratorAnswerNotes(t *testing.T) {
	tests := []struct {
		name      string
		resp      llm.ChatResponse
		want      string
		truncated bool
		removed   int
	}{
		{"whole", llm.ChatResponse{Content: "Ilsa Marrow [doc:guild].", FinishReason: "stop"}, "Ilsa Marrow [doc:guild].", false, 0},
		{"cut", llm.ChatResponse{Content: "Ilsa Marrow [doc:guild] founded", FinishReason: "length"}, "Ilsa Marrow [doc:guild] founded", true, 0},
		{"made up", llm.ChatResponse{Content: "Ilsa Marrow [doc:annals] [doc:guild] [chunk:c9].", FinishReason: "stop"}, "Ilsa Marrow [doc:guild].", false, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, err := New(&tasktest.CannedChat{Resp: tc.resp}, Options{}).Answer(context.Background(), "Who?", contextText)
			if err != nil {
				t.Fatal(err)
			}
			if a.Text != tc.want || a.Truncated != tc.truncated || a.CitationsRemoved != tc.removed {
				t.Errorf("got %+v", a)
			}
		})
	}
}

type windowed struct {
	llm.Chatter
	window int
}

func (w windowed) ContextWindow() int { return w.window }

func TestContextBudgetFitsTheWindow(t *testing.T) {
	tests := []struct{ window, want int }{
		{0, 0},
		{4096, (4096-1024)*5/6 - 500},
		{32768, (32768-1500)*5/6 - 500},
		{600, 0},
	}
	for _, tc := range tests {
		if got := New(windowed{window: tc.window}, Options{}).ContextBudget(); got != tc.want {
			t.Errorf("window %d: budget %d, want %d", tc.window, got, tc.want)
		}
	}
	if got := New(struct{ llm.Chatter }{}, Options{}).ContextBudget(); got != 0 {
		t.Errorf("a chatter without a window: budget %d", got)
	}
}
