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
