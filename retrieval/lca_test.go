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

// TestLCASeeds: the base-layer candidates the question names come first, in rank order, then
// the others; summaries are never seeds, and names of function words only are not promoted.
func TestLCASeeds(t *testing.T) {
	found := []graph.Entity{
		{ID: "MEXICAN BRASSBUTTONS", Name: "Mexican brassbuttons"},
		{ID: "PLANTS", Name: "Plants, Cotula and more", Layer: 1},
		{ID: "COTULA", Name: "Cotula"},
		{ID: "THE WHO", Name: "The Who"},
		{ID: "JUGLANS", Name: "Juglans"},
		{ID: "PTEROCARYA", Name: "Pterocarya"},
	}
	tests := []struct {
		name     string
		question string
		n        int
		want     []string
	}{
		{"named first, in rank order", "Which plant is larger, the Pterocarya or the Cotula?", 10,
			[]string{"COTULA", "PTEROCARYA", "MEXICAN BRASSBUTTONS", "THE WHO", "JUGLANS"}},
		{"the named ones survive the cut", "Which plant is larger, the Pterocarya or the Cotula?", 3,
			[]string{"COTULA", "PTEROCARYA", "MEXICAN BRASSBUTTONS"}},
		{"case and punctuation aside", "PTEROCARYA's kin... or cotula?!", 2, []string{"COTULA", "PTEROCARYA"}},
		{"a name inside a word is not named", "Which of the Pterocaryas?", 2, []string{"MEXICAN BRASSBUTTONS", "COTULA"}},
		{"a name of function words only is not promoted", "Who sang with the who?", 2, []string{"MEXICAN BRASSBUTTONS", "COTULA"}},
		{"nothing named: rank order", "Which walnut grows tallest?", 2, []string{"MEXICAN BRASSBUTTONS", "COTULA"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got, _ := lcaSeeds(tc.question, found, tc.n); !slices.Equal(got, tc.want) {
				t.Errorf("lcaSeeds(%q, %d) = %v, want %v", tc.question, tc.n, got, tc.want)
			}
		})
	}
}

// TestLCANear: of the entities a document names, lca keeps those under one of its groups'
// lowest common ancestors, the ones sharing the lowest ancestor with the best seed first.
func TestLCANear(t *testing.T) {
	layers := map[string]int{"P": 1, "Q": 1, "R": 1, "X": 2, "Y": 2}
	hierarchy := func(ids []string) graph.Hierarchy {
		// ids and everything above them in lcaHierarchy.
		up := upward(lcaHierarchy())
		in := map[string]bool{}
		for _, id := range ids {
			for y := range up(id) {
				in[y] = true
			}
		}
		var h graph.Hierarchy
		for id := range in {
			h.Entities = append(h.Entities, graph.Entity{ID: id, Layer: layers[id]})
		}
		for _, l := range lcaHierarchy() {
			if in[l.Member] && in[l.Summary] {
				h.Links = append(h.Links, l)
			}
		}
		return h
	}
	tests := []struct {
		name  string
		seeds []string
		named []string
		want  []string
	}{
		// a and c meet at X: b shares P with a (the first seed), f shares Q with c; d is under
		// Y only, e under nothing.
		{"under the ancestor, closest to the best seed first", []string{"a", "c"}, []string{"f", "e", "d", "b"}, []string{"b", "f"}},
		// c's own group is Q: f is under it, b too (soft membership); a and d are not.
		{"a lower ancestor keeps less", []string{"c", "b"}, []string{"a", "d", "f"}, []string{"f"}},
		// seeds in different parts of the hierarchy are their own ancestors: nothing is under them.
		{"lone seeds keep nothing", []string{"d", "e"}, []string{"a", "b", "c"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := hierarchy(tc.seeds)
			f := lcaFound{seeds: tc.seeds, h: h, groups: lcaGroups(tc.seeds, h.Links)}
			if got := lcaNear(f, hierarchy(tc.named).Links, tc.named); !slices.Equal(got, tc.want) {
				t.Errorf("lcaNear(seeds %v, %v) = %v, want %v", tc.seeds, tc.named, got, tc.want)
			}
		})
	}
}
