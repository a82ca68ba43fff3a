package retrieval

import (
	"reflect"
	"slices"
	"testing"

	"github.com/stratarag/strata/internal/graph"
)

// lcaHierarchy: layer 0 a..f, layer 1 P (a, b), Q (b, c; b is in two clusters), R (d), layer 2
// X (P, Q), Y (R); e has no summary. f's only summary is Q.
func lcaHierarchy() []graph.SummaryLink {
	l := func(m, s string) graph.SummaryLink { return graph.SummaryLink{Member: m, Summary: s, Weight: 1} }
	return []graph.SummaryLink{l("a", "P"), l("b", "P"), l("b", "Q"), l("c", "Q"), l("f", "Q"), l("d", "R"), l("P", "X"), l("Q", "X"), l("R", "Y")}
}

func TestLCAGroups(t *testing.T) {
	tests := []struct {
		name  string
		seeds []string
		want  []lcaGroup
	}{
		{"one seed is its own ancestor", []string{"a"}, []lcaGroup{{[]string{"a"}, "a"}}},
		{"siblings meet one layer up", []string{"a", "b"}, []lcaGroup{{[]string{"a", "b"}, "P"}}},
		{"soft membership: the lower common summary wins", []string{"c", "b"}, []lcaGroup{{[]string{"c", "b"}, "Q"}}},
		{"cousins meet at the top", []string{"a", "c"}, []lcaGroup{{[]string{"a", "c"}, "X"}}},
		{"no common ancestor: one group per part, in rank order", []string{"d", "a", "c", "e"},
			[]lcaGroup{{[]string{"d"}, "d"}, {[]string{"a", "c"}, "X"}, {[]string{"e"}, "e"}}},
		{"the best seed's group takes the most seeds", []string{"a", "f", "c", "b"}, []lcaGroup{{[]string{"a", "f", "c", "b"}, "X"}}},
		{"no seeds", nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := lcaGroups(tc.seeds, lcaHierarchy()); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("lcaGroups(%v) = %+v, want %+v", tc.seeds, got, tc.want)
			}
		})
	}
}

func TestPathNodes(t *testing.T) {
	tests := []struct {
		name   string
		groups []lcaGroup
		want   []string
	}{
		// a's path to X goes through P only; c's through Q; nothing above X, and not b.
		{"paths up to the ancestor", []lcaGroup{{[]string{"a", "c"}, "X"}}, []string{"P", "Q", "X", "a", "c"}},
		// b reaches Q directly; P is above b but not below Q, so it is off the path.
		{"a summary not below the ancestor is off the path", []lcaGroup{{[]string{"c", "b"}, "Q"}}, []string{"Q", "b", "c"}},
		{"a lone seed", []lcaGroup{{[]string{"e"}, "e"}}, []string{"e"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := pathNodes(tc.groups, lcaHierarchy())
			var ids []string
			for id := range got {
				ids = append(ids, id)
			}
			slices.Sort(ids)
			if !slices.Equal(ids, tc.want) {
				t.Errorf("pathNodes = %v, want %v", ids, tc.want)
			}
		})
	}
}

// TestPairsFirst: the ends of the inter-summary relations come first, the heaviest relation's
// first, each once, then the other summaries in their order.
func TestPairsFirst(t *testing.T) {
	items := []EntityItem{{ID: "A"}, {ID: "B"}, {ID: "C"}, {ID: "D"}, {ID: "E"}}
	rels := []graph.Relation{{Source: "D", Target: "B", Weight: 5}, {Source: "B", Target: "E", Weight: 2}, {Source: "X", Target: "A", Weight: 1}}
	var got []string
	for _, it := range pairsFirst(items, rels) {
		got = append(got, it.ID)
	}
	if want := []string{"D", "B", "E", "A", "C"}; !slices.Equal(got, want) {
		t.Errorf("pairsFirst = %v, want %v", got, want)
	}
}
