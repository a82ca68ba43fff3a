package pipeline

import (
	"slices"
	"testing"

	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/pipeline/extract"
	"github.com/stratarag/strata/pipeline/resolve"
)

func TestWithSubject(t *testing.T) {
	results := func(names ...string) []resolve.ChunkResult {
		var out []resolve.ChunkResult
		for i, n := range names {
			r := resolve.ChunkResult{ChunkID: string(rune('a' + i))}
			if n != "" {
				r.Result.Entities = []extract.Entity{{Name: n}}
			}
			out = append(out, r)
		}
		return out
	}
	mentions := func(rs []resolve.ChunkResult, name string) int {
		n := 0
		for _, r := range rs {
			for _, e := range r.Result.Entities {
				if graph.NormalizeID(e.Name) == graph.NormalizeID(name) {
					n++
					break
				}
			}
		}
		return n
	}
	for _, tc := range []struct {
		name    string
		in      []resolve.ChunkResult
		subject string
		want    int // chunks mentioning the subject afterwards
	}{
		{"named once: every chunk", results("Treaty of Vell", "", "Port Avel"), "Treaty of Vell", 3},
		{"named in other case", results("", "TREATY OF VELL"), "Treaty of Vell", 2},
		{"never named: left out", results("Port Avel", ""), "Treaty of Vell", 0},
		{"no subject", results("Port Avel"), "", 0},
		{"file name stem: written as the extraction writes it", results("", "Lira Solenne"), "lira solenne", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := mentions(tc.in, tc.subject)
			got := withSubject(tc.in, tc.subject)
			if n := mentions(got, tc.subject); tc.want > 0 && n != tc.want {
				t.Errorf("%d chunks mention %q, want %d", n, tc.subject, tc.want)
			} else if tc.want == 0 && n != before {
				t.Errorf("results changed although the subject is not named: %d mentions, was %d", n, before)
			}
			if tc.name == "file name stem: written as the extraction writes it" && slices.ContainsFunc(got, func(r resolve.ChunkResult) bool {
				return slices.ContainsFunc(r.Result.Entities, func(e extract.Entity) bool { return e.Name == "lira solenne" })
			}) {
				t.Errorf("the stem's subject is not written as the text names it: %v", got)
			}
			if mentions(tc.in, tc.subject) != before {
				t.Error("withSubject changed its input")
			}
		})
	}
}
