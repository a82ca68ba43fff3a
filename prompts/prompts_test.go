package prompts

import (
	"strings"
	"testing"
)

func TestCitations(t *testing.T) {
	got := Citations("Founded in 1102 [doc:guild-1]. Led by Ilsa [chunk:9f2c, doc:guild-1] and [doc:x; report:0-3]. [not a cite] " +
		"On page 3 [doc:report.pdf p.3], pages 4 and 5 [doc:report.pdf pp.4-5 chunk:c7] [p.6].")
	want := []Citation{{"doc", "guild-1"}, {"chunk", "9f2c"}, {"doc", "x"}, {"report", "0-3"}, {"doc", "report.pdf"}, {"chunk", "c7"}}
	if len(got) != len(want) {
		t.Fatalf("Citations = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("citation %d = %v, want %v", i, got[i], want[i])
		}
	}
}

func TestCleanSummary(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Ilsa Marrow founded the guild.", "Ilsa Marrow founded the guild."},
		{"<think>hmm</think>\n\"Ilsa Marrow founded\nthe guild.\"", "Ilsa Marrow founded the guild."},
		{"Merged description:\nIlsa Marrow founded the guild.", "Ilsa Marrow founded the guild."},
		{"```\nIlsa Marrow founded the guild.\n```", "Ilsa Marrow founded the guild."},
	}
	for _, tc := range tests {
		if got := CleanSummary(tc.in); got != tc.want {
			t.Errorf("CleanSummary(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestFilterCitations(t *testing.T) {
	ctx := "[doc:guild chunk:c1] text\n[doc:port chunk:c2] text"
	keep := func(c Citation) bool { return strings.Contains(ctx, c.Kind+":"+c.ID) }
	tests := []struct {
		in, want      string
		kept, removed int
	}{
		{"Founded in 1102 [doc:guild].", "Founded in 1102 [doc:guild].", 1, 0},
		{"Founded in 1102 [doc:made-up].", "Founded in 1102.", 0, 1},
		{"Both [doc:guild, doc:nope; chunk:c2] agree.", "Both [doc:guild, chunk:c2] agree.", 2, 1},
		{"Copied label [doc:port chunk:c2].", "Copied label [doc:port, chunk:c2].", 2, 0},
		{"On a page [doc:guild p.3].", "On a page [doc:guild p.3].", 1, 0},
		{"On pages [doc:guild pp.3-4, doc:port].", "On pages [doc:guild pp.3-4, doc:port].", 2, 0},
		{"Copied paged label [doc:port p.2 chunk:c2].", "Copied paged label [doc:port p.2, chunk:c2].", 2, 0},
		{"Made-up pages go with their id [doc:nope p.9, doc:guild p.3].", "Made-up pages go with their id [doc:guild p.3].", 1, 1},
		{"Made up [doc:nope pp.1-2].", "Made up.", 0, 1},
		{"A page alone [p.3] is no citation.", "A page alone [p.3] is no citation.", 0, 0},
		{"No citations.", "No citations.", 0, 0},
	}
	for _, tc := range tests {
		got, kept, removed := FilterCitations(tc.in, keep)
		if got != tc.want || len(kept) != tc.kept || len(removed) != tc.removed {
			t.Errorf("FilterCitations(%q) = %q, %v, %v", tc.in, got, kept, removed)
		}
	}
}

func TestOpenCitation(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{"no bracket", -1},
		{"closed [doc:a] here", -1},
		{"open [", 5},
		{"open [doc", 5},
		{"open [doc:a, chunk:", 5},
		{"open [doc:a; ", 5},
		{"[doc:a] then [chunk:b", 13},
		{"not one [the note", -1},
		{"not one [1", -1},
		{"not one [Doc:a", -1},
		{"[x [doc:a", 3},
		{"open [doc:a p", 5},
		{"open [doc:a p.", 5},
		{"open [doc:a pp.3-", 5},
		{"open [doc:a p.3, doc:", 5},
		{"closed [doc:a p.3] here", -1},
	}
	for _, tc := range tests {
		if got := OpenCitation(tc.in); got != tc.want {
			t.Errorf("OpenCitation(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
}
