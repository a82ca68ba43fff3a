package llmtask

import (
	"testing"

	"github.com/stratarag/strata/internal/llm"
)

func TestJudges(t *testing.T) {
	const ok, cut = "stop", "length"
	for _, tc := range []struct {
		name   string
		judge  func(llm.ChatResponse) llm.Verdict
		answer string
		finish string
		want   string // "whole", "salvaged" or "unreadable"
		drop   int
	}{
		{"records whole", JudgeRecords, `("entity"<|>ILSA<|>person<|>a founder)##<|COMPLETE|>`, ok, "whole", 0},
		{"records empty answer", JudgeRecords, `<|COMPLETE|>`, ok, "whole", 0},
		{"records one broken", JudgeRecords, "(\"entity\"<|>ILSA<|>person<|>a founder)##\n(\"entity\"|BROKEN|person)##\n(\"entity\"<|>PORT AVEL<|>location<|>a port)<|COMPLETE|>", ok, "salvaged", 1},
		{"records cut off", JudgeRecords, `("entity"<|>ILSA<|>person<|>a founder)##("entity"<|>PORT`, cut, "salvaged", 1},
		{"records prose only", JudgeRecords, `I could not find any entities, sorry.`, ok, "unreadable", 1},
		{"records reasoning cut off", JudgeRecords, ``, cut, "unreadable", 0},
		{"summary whole", JudgeSummary, `Ilsa Marrow founded the guild.`, ok, "whole", 0},
		{"summary cut off", JudgeSummary, `Ilsa Marrow founded`, cut, "salvaged", 0},
		{"summary empty", JudgeSummary, `<think>hmm</think>`, ok, "unreadable", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := tc.judge(llm.ChatResponse{Content: tc.answer, FinishReason: tc.finish})
			got := "whole"
			switch {
			case v.Unreadable && v.Salvaged:
				got = "both"
			case v.Unreadable:
				got = "unreadable"
			case v.Salvaged:
				got = "salvaged"
			}
			if got != tc.want || v.Dropped != tc.drop {
				t.Errorf("verdict %+v (%s), want %s with %d dropped", v, got, tc.want, tc.drop)
			}
			if v.Damaged() && v.Reason == "" {
				t.Error("a damaged verdict without a reason")
			}
		})
	}
}

type windowChat struct {
	llm.Chatter
	window int
}

func (w windowChat) ContextWindow() int { return w.window }

// TestFitInput: the input budget shrinks to what a known window holds beside the prompt's
// overhead and the answer (a quarter of the window at most), with a fifth kept for the server's
// tokenizer, and never below a tenth of the budget.
func TestFitInput(t *testing.T) {
	tests := []struct {
		name                           string
		chat                           llm.Chatter
		budget, answer, overhead, want int
	}{
		{"window unknown", nil, 3000, 1500, 450, 3000},
		{"window zero", windowChat{window: 0}, 3000, 1500, 450, 3000},
		{"large window keeps the budget", windowChat{window: 128000}, 3000, 1500, 450, 3000},
		{"2 048 tokens", windowChat{window: 2048}, 3000, 1500, 450, (2048-512)*5/6 - 450},
		{"a small answer cap", windowChat{window: 4096}, 3000, 600, 350, (4096-600)*5/6 - 350},
		{"too small a window", windowChat{window: 512}, 3000, 1500, 450, 300},
	}
	for _, tc := range tests {
		if got := FitInput(tc.chat, tc.budget, tc.answer, tc.overhead); got != tc.want {
			t.Errorf("%s: FitInput = %d, want %d", tc.name, got, tc.want)
		}
	}
}
