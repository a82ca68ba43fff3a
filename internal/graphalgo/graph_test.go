package graphalgo

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"testing"
)

func TestNewGraph(t *testing.T) {
	g := NewGraph(4, []Edge{
		{2, 0, 1}, {0, 2, 2}, // duplicate in both orientations: merged to 3
		{1, 1, 4}, // self-loop
		{3, 1, 0.5}, {1, 0, 1},
		{1, 1, 1}, // second self-loop on the same node adds up
	})
	tests := []struct {
		u        int
		targets  []int32
		weights  []float32
		self     float64
		strength float64
	}{
		{0, []int32{1, 2}, []float32{1, 3}, 0, 4},
		{1, []int32{0, 3}, []float32{1, 0.5}, 5, 11.5},
		{2, []int32{0}, []float32{3}, 0, 3},
		{3, []int32{1}, []float32{0.5}, 0, 0.5},
	}
	for _, tt := range tests {
		ts, ws := g.Neighbors(tt.u)
		if !slices.Equal(ts, tt.targets) || !slices.Equal(ws, tt.weights) {
			t.Errorf("Neighbors(%d) = %v %v, want %v %v", tt.u, ts, ws, tt.targets, tt.weights)
		}
		if g.SelfLoop(tt.u) != tt.self || g.Strength(tt.u) != tt.strength || g.Degree(tt.u) != len(tt.targets) {
			t.Errorf("node %d: self %v strength %v degree %d, want %v %v %d", tt.u,
				g.SelfLoop(tt.u), g.Strength(tt.u), g.Degree(tt.u), tt.self, tt.strength, len(tt.targets))
		}
	}
	if g.NumNodes() != 4 || g.NumEdges() != 4 || g.TotalWeight() != 9.5 {
		t.Errorf("n=%d m=%d total=%v, want 4 4 9.5", g.NumNodes(), g.NumEdges(), g.TotalWeight())
	}
	want := []Edge{{0, 1, 1}, {0, 2, 3}, {1, 1, 5}, {1, 3, 0.5}}
	if got := g.Edges(); !slices.Equal(got, want) {
		t.Errorf("Edges = %v, want %v", got, want)
	}
}

func TestNewGraphChecked(t *testing.T) {
	tests := []struct {
		name  string
		n     int
		edges []Edge
		err   string
	}{
		{"negative n", -1, nil, "negative node count"},
		{"node out of range", 2, []Edge{{0, 2, 1}}, "out of range"},
		{"negative node", 2, []Edge{{-1, 0, 1}}, "out of range"},
		{"negative weight", 2, []Edge{{0, 1, -1}}, "invalid weight"},
		{"NaN weight", 2, []Edge{{0, 1, math.NaN()}}, "invalid weight"},
		{"infinite weight", 2, []Edge{{0, 1, math.Inf(1)}}, "invalid weight"},
		{"fine", 2, []Edge{{0, 1, 0}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewGraphChecked(tt.n, tt.edges)
			if (err == nil) != (tt.err == "") || (err != nil && !strings.Contains(err.Error(), tt.err)) {
				t.Errorf("err = %v, want %q", err, tt.err)
			}
		})
	}
	defer func() {
		if recover() == nil {
			t.Error("NewGraph with a bad edge did not panic")
		}
	}()
	NewGraph(1, []Edge{{0, 1, 1}})
}

func TestReadEdgeList(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		n, m  int
		total float64
		err   string
	}{
		{"plain", "0 1\n1 2\n", 3, 2, 2, ""},
		{"comments, commas, weights", "# a comment\n% another\n\n0,1,2.5\n1\t2 0.5 extra\n", 3, 2, 3, ""},
		{"declared nodes", "# nodes 5\n0 1\n", 5, 1, 1, ""},
		{"duplicates merge", "0 1\n1 0\n", 2, 1, 2, ""},
		{"one field", "0\n", 0, 0, 0, "line 1"},
		{"bad node", "0 x\n", 0, 0, 0, "bad node id"},
		{"negative node", "0 -1\n", 0, 0, 0, "bad node id"},
		{"bad weight", "0 1 abc\n", 0, 0, 0, "bad weight"},
		{"negative weight", "0 1 -2\n", 0, 0, 0, "bad weight"},
		{"declared too few", "# nodes 1\n0 1\n", 0, 0, 0, "declares 1 nodes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := ReadEdgeList(strings.NewReader(tt.in))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if g.NumNodes() != tt.n || g.NumEdges() != tt.m || g.TotalWeight() != tt.total {
				t.Errorf("n=%d m=%d total=%v, want %d %d %v", g.NumNodes(), g.NumEdges(), g.TotalWeight(), tt.n, tt.m, tt.total)
			}
		})
	}
}

func TestEdgeListRoundTrip(t *testing.T) {
	for _, edges := range [][]Edge{
		{{0, 1, 1}, {1, 2, 1}, {3, 3, 1}},       // unweighted, with a self-loop
		{{0, 1, 0.25}, {2, 1, 3}, {1, 1, 1e-9}}, // weighted
	} {
		g := NewGraph(6, edges) // nodes 4 and 5 are isolated
		var buf bytes.Buffer
		if err := WriteEdgeList(&buf, g); err != nil {
			t.Fatal(err)
		}
		h, err := ReadEdgeList(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if h.NumNodes() != g.NumNodes() || !slices.Equal(h.Edges(), g.Edges()) {
			t.Errorf("round trip: got %d nodes %v, want %d nodes %v", h.NumNodes(), h.Edges(), g.NumNodes(), g.Edges())
		}
	}
}

func TestReadGML(t *testing.T) {
	const in = `# written by hand
Creator "test [not a list]"
graph [
  directed 0
  node [ id 10 label "a b" community 3 community 1 value 7 ]
  node [
    id 20
    label "x"
    graphics [ x 1.5 y 2 ]
    community 1
    score 0.5
  ]
  node [ id 5 community 2 ]
  edge [ source 10 target 20 weight 2.5 ]
  edge [ source 20 target 5 ]
  edge [ source 5 target 5 ]
]
`
	g, labels, err := ReadGML(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if g.NumNodes() != 3 || g.NumEdges() != 3 || g.TotalWeight() != 4.5 || g.SelfLoop(2) != 1 {
		t.Errorf("n=%d m=%d total=%v, want 3 3 4.5", g.NumNodes(), g.NumEdges(), g.TotalWeight())
	}
	want := map[string][]int{
		"id":        {10, 20, 5},
		"community": {1, 1, 2}, // a repeated key gives its smallest value
		"value":     {7, -1, -1},
	}
	if len(labels) != len(want) {
		t.Errorf("labels %v, want %v", labels, want)
	}
	for k, v := range want {
		if !slices.Equal(labels[k], v) {
			t.Errorf("labels[%q] = %v, want %v", k, labels[k], v)
		}
	}

	bad := []struct{ name, in, err string }{
		{"no graph", "foo 1\n", "no graph"},
		{"unterminated list", "graph [ node [ id 1 ]\n", "missing ']'"},
		{"unterminated string", "graph [ node [ id 1 label \"x ] ]", "unterminated string"},
		{"stray bracket", "]", "unexpected ']'"},
		{"node without id", "graph [ node [ label \"x\" ] ]", "without an integer id"},
		{"duplicate id", "graph [ node [ id 1 ] node [ id 1 ] ]", "duplicate node id"},
		{"unknown node", "graph [ node [ id 1 ] edge [ source 1 target 2 ] ]", "unknown node"},
		{"edge without target", "graph [ node [ id 1 ] edge [ source 1 ] ]", "without source or target"},
		{"bad weight", "graph [ node [ id 1 ] edge [ source 1 target 1 weight -1 ] ]", "bad weight"},
		{"key without value", "graph [ node ]", "without value"},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := ReadGML(strings.NewReader(tt.in))
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("err = %v, want %q", err, tt.err)
			}
		})
	}
}

func TestReadSharedGraphs(t *testing.T) {
	for _, ref := range referenceGraphs {
		g, truth := loadShared(t, ref.file)
		if g.NumNodes() != ref.n || g.NumEdges() != ref.m {
			t.Errorf("%s: n=%d m=%d, want %d %d", ref.file, g.NumNodes(), g.NumEdges(), ref.n, ref.m)
		}
		if hasTruth := !math.IsNaN(ref.nmi); hasTruth != (truth != nil) {
			t.Errorf("%s: ground truth present = %v, want %v", ref.file, truth != nil, hasTruth)
		}
	}
}

func TestPlanted(t *testing.T) {
	cfg := PlantedConfig{N: 5000, AvgDegree: 20, MaxDegree: 100, DegreeExp: 2.5,
		MinCommunity: 20, MaxCommunity: 500, CommunityExp: 1.5, Mu: 0.3, Seed: 9}
	g, comm, err := Planted(cfg)
	if err != nil {
		t.Fatal(err)
	}
	h, comm2, _ := Planted(cfg)
	if !slices.Equal(g.Edges(), h.Edges()) || !slices.Equal(comm, comm2) {
		t.Error("Planted is not deterministic")
	}
	avg := 2 * float64(g.NumEdges()) / float64(g.NumNodes())
	var cross float64
	for _, e := range g.Edges() {
		if comm[e.U] != comm[e.V] {
			cross++
		}
	}
	mu := cross / float64(g.NumEdges())
	if avg < 0.85*cfg.AvgDegree || avg > 1.05*cfg.AvgDegree || math.Abs(mu-cfg.Mu) > 0.05 {
		t.Errorf("mean degree %.1f (want about %v), mixing %.3f (want about %v)", avg, cfg.AvgDegree, mu, cfg.Mu)
	}
	bad := cfg
	bad.Mu = 2
	if _, _, err := Planted(bad); err == nil {
		t.Error("Mu = 2 accepted")
	}
}

func BenchmarkNewGraph(b *testing.B) {
	g, _, err := Planted(PlantedConfig{N: 20000, AvgDegree: 20, MaxDegree: 200, DegreeExp: 2.5,
		MinCommunity: 50, MaxCommunity: 1000, CommunityExp: 1.5, Mu: 0.3, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	edges := g.Edges()
	b.ReportAllocs()
	for b.Loop() {
		NewGraph(g.NumNodes(), edges)
	}
}

// TestSelfLoopStorage checks that a graph without self-loops of non-zero weight holds no
// self-loop weights (8 bytes a node of a graph of millions) and still answers for every node.
func TestSelfLoopStorage(t *testing.T) {
	tests := []struct {
		name   string
		edges  []Edge
		held   bool
		loop1  float64
		listed int // edges listed by Edges
	}{
		{"no loops", []Edge{{0, 1, 1}, {1, 2, 2}}, false, 0, 2},
		{"a loop of weight 0", []Edge{{0, 1, 1}, {1, 1, 0}}, false, 0, 1},
		{"a loop", []Edge{{0, 1, 1}, {1, 1, 2.5}}, true, 2.5, 2},
	}
	for _, tt := range tests {
		g := NewGraph(3, tt.edges)
		if held := g.self != nil; held != tt.held {
			t.Errorf("%s: self-loop weights held = %v, want %v", tt.name, held, tt.held)
		}
		if g.NumNodes() != 3 || g.SelfLoop(1) != tt.loop1 || g.SelfLoop(2) != 0 {
			t.Errorf("%s: %d nodes, self-loop of 1 %v, of 2 %v; want 3, %v, 0", tt.name, g.NumNodes(), g.SelfLoop(1), g.SelfLoop(2), tt.loop1)
		}
		if got := len(g.Edges()); got != tt.listed {
			t.Errorf("%s: %d edges listed, want %d", tt.name, got, tt.listed)
		}
	}
}
