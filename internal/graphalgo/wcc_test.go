package graphalgo

import (
	"slices"
	"testing"
)

// wcc is WCCSource over edges, with the components as ints.
func wcc(t *testing.T, n int, edges []Edge) (component []int, sizes []int) {
	t.Helper()
	comp, sizes, err := WCCSource(n, edgesSource(edges))
	if err != nil {
		t.Fatal(err)
	}
	component = make([]int, n)
	for i, c := range comp {
		component[i] = int(c)
	}
	return component, sizes
}

func TestWCCMatchesNetworkx(t *testing.T) {
	for _, fg := range loadFixture(t) {
		t.Run(fg.Name, func(t *testing.T) {
			g, _ := graphFor(t, fg)
			comp, sizes := wcc(t, g.NumNodes(), g.Edges())
			if !slices.Equal(sizes, fg.ComponentSizes) {
				t.Errorf("sizes = %v, networkx %v", sizes, fg.ComponentSizes)
			}
			// Components are numbered by smallest node, so each id maps to one smallest node.
			first := make([]int, len(sizes))
			for i := range first {
				first[i] = -1
			}
			for u, c := range comp {
				if first[c] < 0 {
					first[c] = u
				}
				if first[c] != fg.ComponentMin[u] {
					t.Fatalf("node %d is with node %d, networkx puts it with %d", u, first[c], fg.ComponentMin[u])
				}
			}
		})
	}
}

func TestWCC(t *testing.T) {
	tests := []struct {
		name  string
		n     int
		edges []Edge
		comp  []int
		sizes []int
	}{
		{"empty", 0, nil, []int{}, nil},
		{"isolated nodes", 3, nil, []int{0, 1, 2}, []int{1, 1, 1}},
		{"self-loop does not connect", 2, []Edge{{1, 1, 1}}, []int{0, 1}, []int{1, 1}},
		{"zero weight still connects", 2, []Edge{{0, 1, 0}}, []int{0, 0}, []int{2}},
		{"numbered by smallest node", 6, []Edge{{5, 3, 1}, {4, 1, 1}, {2, 0, 1}, {3, 2, 1}},
			[]int{0, 1, 0, 0, 1, 0}, []int{4, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			comp, sizes := wcc(t, tt.n, tt.edges)
			if !slices.Equal(comp, tt.comp) || !slices.Equal(sizes, tt.sizes) {
				t.Errorf("WCCSource = %v %v, want %v %v", comp, sizes, tt.comp, tt.sizes)
			}
		})
	}
}
