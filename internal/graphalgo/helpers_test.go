package graphalgo

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sharedGraphs is where the shared benchmark graphs live, relative to this package.
const sharedGraphs = "../../../shared/data/graphs"

// loadShared reads one of the shared graphs and its ground truth (nil when there is none). It
// skips the test when the shared data is not there.
func loadShared(tb testing.TB, file string) (*Graph, []int) {
	tb.Helper()
	path := filepath.Join(sharedGraphs, file)
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		tb.Skipf("shared test graph %s not found (expected the shared data folder at %s)", file, sharedGraphs)
	}
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	if !strings.HasSuffix(file, ".gml") {
		g, err := ReadEdgeList(f)
		if err != nil {
			tb.Fatalf("%s: %v", file, err)
		}
		return g, nil
	}
	g, labels, err := ReadGML(f)
	if err != nil {
		tb.Fatalf("%s: %v", file, err)
	}
	for _, attr := range []string{"community", "value"} {
		if truth, ok := labels[attr]; ok {
			return g, truth
		}
	}
	return g, nil
}

// fixtureGraph is one graph of testdata/networkx_fixture.json (made by
// bench/leiden/make_fixture.py).
type fixtureGraph struct {
	Name           string      `json:"name"`
	File           string      `json:"file"`
	Filter         string      `json:"filter"`
	N              int         `json:"n"`
	M              int         `json:"m"`
	ComponentSizes []int       `json:"component_sizes"`
	ComponentMin   []int       `json:"component_min"`
	Pairs          [][]float64 `json:"pairs"` // src, dst, BFS hops (-1: none), Dijkstra cost (-1: none)
	Truth          []int       `json:"truth"`
	TruthQ         *float64    `json:"truth_modularity"`
	NMITruthMod7   *float64    `json:"nmi_truth_mod7"`
	NMITruthSelf   *float64    `json:"nmi_truth_self"`
}

func loadFixture(t *testing.T) []fixtureGraph {
	t.Helper()
	data, err := os.ReadFile("testdata/networkx_fixture.json")
	if err != nil {
		t.Fatal(err)
	}
	var fx struct {
		Graphs []fixtureGraph `json:"graphs"`
	}
	if err := json.Unmarshal(data, &fx); err != nil {
		t.Fatalf("networkx_fixture.json: %v", err)
	}
	return fx.Graphs
}

// fixtureWeight is the deterministic edge weight the fixture uses for Dijkstra.
func fixtureWeight(u, v int) float64 {
	a, b := min(u, v), max(u, v)
	return float64(1 + (7*a+13*b)%5)
}

// graphFor rebuilds the graph a fixture entry describes, with unit weights and with the
// fixture's Dijkstra weights.
func graphFor(t *testing.T, fg fixtureGraph) (unit, weighted *Graph) {
	t.Helper()
	g, truth := loadShared(t, fg.File)
	var ue, we []Edge
	for _, e := range g.Edges() {
		if fg.Filter == "intra" && truth[e.U] != truth[e.V] {
			continue
		}
		ue = append(ue, Edge{U: e.U, V: e.V, W: 1})
		we = append(we, Edge{U: e.U, V: e.V, W: fixtureWeight(e.U, e.V)})
	}
	return NewGraph(g.NumNodes(), ue), NewGraph(g.NumNodes(), we)
}
