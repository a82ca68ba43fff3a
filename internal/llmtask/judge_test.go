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
		{"report whole", judgeReport, `{"title":"T","summary":"S","rating":5,"findings":[{"summary":"a","explanation":"b"}]}`, ok, "whole", 0},
		{"report empty finding", judgeReport, `{"title":"T","summary":"S","findings":[{}]}`, ok, "salvaged", 1},
		{"report cut off", judgeReport, `{"title":"T","summary":"S","findings":[{"summary":"a"`, cut, "salvaged", 0},
		{"report no JSON", judgeReport, `The community is about harbors.`, ok, "unreadable", 0},
		{"points whole", judgePoints, `{"points":[{"description":"a","score":50}]}`, ok, "whole", 0},
		{"points one empty", judgePoints, `{"points":[{"description":"a","score":50},{"score":3}]}`, ok, "salvaged", 1},
		{"summary whole", judgeSummary, `Ilsa Marrow founded the guild.`, ok, "whole", 0},
		{"summary cut off", judgeSummary, `Ilsa Marrow founded`, cut, "salvaged", 0},
		{"summary empty", judgeSummary, `<think>hmm</think>`, ok, "unreadable", 0},
		{"summary entities whole", judgeSummaryEntities, `("entity"<|>GUILDS<|>organization<|>guilds)<|COMPLETE|>`, ok, "whole", 0},
		{"summary entities without entity", judgeSummaryEntities, `("relationship"<|>A<|>B<|>r<|>2)<|COMPLETE|>`, ok, "unreadable", 0},
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
