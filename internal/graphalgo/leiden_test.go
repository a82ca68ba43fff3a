package graphalgo

import (
	"fmt"
	"math"
	"slices"
	"testing"
)

// referenceGraphs are the shared graphs with leidenalg 0.9.1's results (best of 10 seeds,
// ModularityVertexPartition, n_iterations=-1) from tracker issue 3.
var referenceGraphs = []struct {
	file        string
	n, m        int
	modularity  float64
	communities int
	nmi         float64 // NaN: no ground truth
}{
	{"karate.edgelist", 34, 78, 0.4198, 4, math.NaN()},
	{"football.gml", 115, 613, 0.6046, 10, 0.890},
	{"lfr_n1000_mu0.1.gml", 1000, 9335, 0.8211, 40, 0.984},
	{"lfr_n1000_mu0.3.gml", 1000, 9822, 0.5172, 28, 0.938},
	{"lfr_n1000_mu0.5.gml", 1000, 10175, 0.2896, 16, 0.608},
}

func TestLeidenMatchesReference(t *testing.T) {
	const seeds = 10
	for _, ref := range referenceGraphs {
		t.Run(ref.file, func(t *testing.T) {
			g, truth := loadShared(t, ref.file)
			if g.NumNodes() != ref.n || g.NumEdges() != ref.m {
				t.Fatalf("graph has n=%d m=%d, want n=%d m=%d", g.NumNodes(), g.NumEdges(), ref.n, ref.m)
			}
			var best LeidenResult
			bestQ := math.Inf(-1)
			for seed := range int64(seeds) {
				res := Leiden(g, LeidenOptions{Seed: seed})
				checkHierarchy(t, g, res, 1)
				if q := res.Modularity[len(res.Modularity)-1]; q > bestQ {
					best, bestQ = res, q
				}
			}
			k := slices.Max(best.Final()) + 1
			nmi := math.NaN()
			if truth != nil {
				nmi = NMI(best.Final(), truth)
			}
			t.Logf("Q=%.4f (ref %.4f) communities=%d (ref %d) NMI=%.3f (ref %.3f) levels=%d",
				bestQ, ref.modularity, k, ref.communities, nmi, ref.nmi, len(best.Levels))
			if bestQ < ref.modularity-0.002 {
				t.Errorf("best modularity over %d seeds = %.4f, want >= %.4f - 0.002", seeds, bestQ, ref.modularity)
			}
			// A higher NMI than leidenalg's is fine, like a higher modularity.
			if truth != nil && nmi < ref.nmi-0.02 {
				t.Errorf("NMI of the best partition = %.3f, want >= %.3f - 0.02", nmi, ref.nmi)
			}
		})
	}
}

// checkHierarchy verifies the LeidenResult contract: dense ids, nested levels, connected
// communities, distinct consecutive levels and matching modularity values.
func checkHierarchy(t *testing.T, g *Graph, res LeidenResult, gamma float64) {
	t.Helper()
	n := g.NumNodes()
	if len(res.Levels) == 0 || len(res.Levels) != len(res.Modularity) {
		t.Fatalf("%d levels and %d modularity values", len(res.Levels), len(res.Modularity))
	}
	for k, lv := range res.Levels {
		if len(lv) != n {
			t.Fatalf("level %d has %d entries, want %d", k, len(lv), n)
		}
		// Dense and numbered in order of first node.
		next := 0
		for u, c := range lv {
			if c > next || c < 0 {
				t.Fatalf("level %d: node %d has community %d, want ids in order of first node (next %d)", k, u, c, next)
			}
			if c == next {
				next++
			}
		}
		if q := Modularity(g, lv, gamma); math.Abs(q-res.Modularity[k]) > 1e-9 {
			t.Errorf("level %d: Modularity = %v, result says %v", k, q, res.Modularity[k])
		}
		if split := splitLabels(g, lv); slices.Max(split) != slices.Max(lv) {
			t.Errorf("level %d: %d communities but %d connected pieces", k, slices.Max(lv)+1, slices.Max(split)+1)
		}
		if k == 0 {
			continue
		}
		prev := res.Levels[k-1]
		if slices.Equal(prev, lv) {
			t.Errorf("levels %d and %d are equal", k-1, k)
		}
		parent := make(map[int]int)
		for u := range lv {
			if p, ok := parent[prev[u]]; ok && p != lv[u] {
				t.Fatalf("level %d is not a coarsening of level %d: community %d of level %d is split", k, k-1, prev[u], k-1)
			}
			parent[prev[u]] = lv[u]
		}
	}
}

// splitLabels splits every community into its connected components.
func splitLabels(g *Graph, lv []int) []int {
	p := make([]int32, len(lv))
	for i, c := range lv {
		p[i] = int32(c)
	}
	var uf unionFind
	splitDisconnected(g, p, &uf, make([]int32, len(lv)))
	out := make([]int, len(lv))
	for i, c := range p {
		out[i] = int(c)
	}
	return out
}

func TestLeidenDeterministic(t *testing.T) {
	g, _ := loadShared(t, "lfr_n1000_mu0.5.gml")
	for _, seed := range []int64{0, 7, -3} {
		a := Leiden(g, LeidenOptions{Seed: seed})
		b := Leiden(g, LeidenOptions{Seed: seed})
		if !slices.EqualFunc(a.Levels, b.Levels, slices.Equal) || !slices.Equal(a.Modularity, b.Modularity) {
			t.Errorf("seed %d: two runs differ", seed)
		}
	}
}

func TestLeidenSmallGraphs(t *testing.T) {
	clique := func(nodes ...int) []Edge {
		var es []Edge
		for i, u := range nodes {
			for _, v := range nodes[i+1:] {
				es = append(es, Edge{U: u, V: v, W: 1})
			}
		}
		return es
	}
	tests := []struct {
		name  string
		n     int
		edges []Edge
		want  []int // expected final partition
	}{
		{"single node", 1, nil, []int{0}},
		{"no edges", 3, nil, []int{0, 1, 2}},
		{"one edge", 2, []Edge{{0, 1, 1}}, []int{0, 0}},
		{"two cliques and a bridge", 8,
			append(append(clique(0, 1, 2, 3), clique(4, 5, 6, 7)...), Edge{3, 4, 1}),
			[]int{0, 0, 0, 0, 1, 1, 1, 1}},
		{"two components", 7,
			append(clique(0, 2, 4), clique(1, 3, 5)...),
			[]int{0, 1, 0, 1, 0, 1, 2}},
		{"weights decide", 4,
			// A 4-cycle: the heavy edges 0-1 and 2-3 pair up their ends.
			[]Edge{{0, 1, 10}, {1, 2, 1}, {2, 3, 10}, {3, 0, 1}},
			[]int{0, 0, 1, 1}},
		{"self-loops and duplicates", 4,
			[]Edge{{0, 0, 5}, {0, 1, 1}, {1, 0, 2}, {2, 3, 3}, {3, 3, 1}, {1, 2, 0.1}},
			[]int{0, 0, 1, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewGraph(tt.n, tt.edges)
			res := Leiden(g, LeidenOptions{Seed: 1})
			checkHierarchy(t, g, res, 1)
			if got := res.Final(); !slices.Equal(got, tt.want) {
				t.Errorf("final partition = %v, want %v", got, tt.want)
			}
		})
	}
	if res := Leiden(NewGraph(0, nil), LeidenOptions{}); len(res.Levels) != 0 || res.Final() != nil {
		t.Errorf("empty graph: got %+v, want no levels", res)
	}
}

func TestLeidenOptions(t *testing.T) {
	g, _ := loadShared(t, "lfr_n1000_mu0.3.gml")
	count := func(r LeidenResult) int { return slices.Max(r.Final()) + 1 }
	base := Leiden(g, LeidenOptions{Seed: 3})
	tests := []struct {
		name  string
		opt   LeidenOptions
		check func(r LeidenResult) error
	}{
		{"defaults spelled out", func() LeidenOptions { o := DefaultLeidenOptions(); o.Seed = 3; return o }(),
			func(r LeidenResult) error {
				if !slices.Equal(r.Final(), base.Final()) {
					return fmt.Errorf("differs from the zero-value options")
				}
				return nil
			}},
		{"higher resolution gives more communities", LeidenOptions{Seed: 3, Gamma: 4},
			func(r LeidenResult) error {
				if count(r) <= count(base) {
					return fmt.Errorf("%d communities, want more than %d", count(r), count(base))
				}
				return nil
			}},
		{"lower resolution gives fewer communities", LeidenOptions{Seed: 3, Gamma: 0.2},
			func(r LeidenResult) error {
				if count(r) >= count(base) {
					return fmt.Errorf("%d communities, want fewer than %d", count(r), count(base))
				}
				return nil
			}},
		{"one level", LeidenOptions{Seed: 3, MaxLevels: 1, Iterations: 1},
			func(r LeidenResult) error {
				if len(r.Levels) != 1 {
					return fmt.Errorf("%d levels, want 1", len(r.Levels))
				}
				return nil
			}},
		{"single iteration is no better", LeidenOptions{Seed: 3, Iterations: 1},
			func(r LeidenResult) error {
				if q, qb := r.Modularity[len(r.Modularity)-1], base.Modularity[len(base.Modularity)-1]; q > qb+1e-12 {
					return fmt.Errorf("one iteration gives Q=%v, more than the default %v", q, qb)
				}
				return nil
			}},
		{"almost greedy refinement", LeidenOptions{Seed: 3, Theta: 1e-9},
			func(LeidenResult) error { return nil }},
		{"very random refinement", LeidenOptions{Seed: 3, Theta: 1e3},
			func(LeidenResult) error { return nil }},
		{"zero tolerance", LeidenOptions{Seed: 3, Tolerance: -1},
			func(LeidenResult) error { return nil }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gamma := tt.opt.withDefaults().Gamma
			r := Leiden(g, tt.opt)
			checkHierarchy(t, g, r, gamma)
			if err := tt.check(r); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestLeidenPlanted(t *testing.T) {
	g, truth, err := Planted(PlantedConfig{N: 3000, AvgDegree: 15, MaxDegree: 60, DegreeExp: 2.5,
		MinCommunity: 30, MaxCommunity: 300, CommunityExp: 1.5, Mu: 0.2, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	res := Leiden(g, LeidenOptions{Seed: 1})
	checkHierarchy(t, g, res, 1)
	q, qt := res.Modularity[len(res.Modularity)-1], Modularity(g, truth, 1)
	if nmi := NMI(res.Final(), truth); nmi < 0.9 || q < qt-0.002 {
		t.Errorf("planted graph: NMI = %.3f (want >= 0.9), Q = %.4f (planted %.4f)", nmi, q, qt)
	}
}

func TestModularityAndNMIMatchReference(t *testing.T) {
	for _, fg := range loadFixture(t) {
		if fg.TruthQ == nil || fg.Filter != "" {
			continue
		}
		t.Run(fg.Name, func(t *testing.T) {
			_, truth := loadShared(t, fg.File)
			if !slices.Equal(truth, fg.Truth) {
				t.Fatalf("ground truth read from %s differs from the fixture's", fg.File)
			}
			unit, _ := graphFor(t, fg)
			// networkx's modularity of the simple graph (duplicates collapse to one edge).
			if q := Modularity(unit, truth, 1); math.Abs(q-*fg.TruthQ) > 1e-9 {
				t.Errorf("Modularity(truth) = %.12f, networkx says %.12f", q, *fg.TruthQ)
			}
			mod7 := make([]int, len(truth))
			for i := range mod7 {
				mod7[i] = i % 7
			}
			if got := NMI(truth, mod7); math.Abs(got-*fg.NMITruthMod7) > 1e-9 {
				t.Errorf("NMI(truth, id mod 7) = %.12f, igraph says %.12f", got, *fg.NMITruthMod7)
			}
			if got := NMI(truth, truth); math.Abs(got-*fg.NMITruthSelf) > 1e-9 {
				t.Errorf("NMI(truth, truth) = %v, igraph says %v", got, *fg.NMITruthSelf)
			}
		})
	}
}

func TestModularity(t *testing.T) {
	// Two triangles joined by one edge: m = 7, each side has 3 internal edges and degree sum 7.
	g := NewGraph(6, []Edge{{0, 1, 1}, {1, 2, 1}, {0, 2, 1}, {3, 4, 1}, {4, 5, 1}, {3, 5, 1}, {2, 3, 1}})
	tests := []struct {
		name  string
		part  []int
		gamma float64
		want  float64
	}{
		{"split", []int{0, 0, 0, 1, 1, 1}, 1, 2 * (3.0/7 - 0.25)},
		{"labels need not be dense", []int{-5, -5, -5, 99, 99, 99}, 1, 2 * (3.0/7 - 0.25)},
		{"one community", []int{0, 0, 0, 0, 0, 0}, 1, 0},
		{"singletons", []int{0, 1, 2, 3, 4, 5}, 1, -(4*4.0 + 2*9.0) / 196},
		{"resolution 0.5", []int{0, 0, 0, 1, 1, 1}, 0.5, 2 * (3.0/7 - 0.125)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Modularity(g, tt.part, tt.gamma); math.Abs(got-tt.want) > 1e-12 {
				t.Errorf("Modularity = %v, want %v", got, tt.want)
			}
		})
	}
	// A self-loop of weight w adds w to m, 2w to the strength and w to the internal weight.
	loop := NewGraph(2, []Edge{{0, 0, 1}, {0, 1, 1}})
	if got, want := Modularity(loop, []int{0, 1}, 1), 1.0/2-(3.0*3+1)/16; math.Abs(got-want) > 1e-12 {
		t.Errorf("self-loop: Modularity = %v, want %v", got, want)
	}
	if got := Modularity(NewGraph(3, nil), []int{0, 1, 2}, 1); got != 0 {
		t.Errorf("edgeless graph: Modularity = %v, want 0", got)
	}
}

func TestNMI(t *testing.T) {
	tests := []struct {
		name string
		a, b []int
		want float64
	}{
		{"identical", []int{0, 0, 1, 1}, []int{0, 0, 1, 1}, 1},
		{"relabelled", []int{0, 0, 1, 1, 2}, []int{7, 7, -1, -1, 3}, 1},
		{"independent", []int{0, 0, 1, 1}, []int{0, 1, 0, 1}, 0},
		{"both trivial", []int{4, 4, 4}, []int{1, 1, 1}, 1},
		{"one trivial", []int{0, 0, 0, 0}, []int{0, 0, 1, 1}, 0},
		// H(a) = ln 2, H(b) = 1.5 ln 2, I = ln 2.
		{"refinement", []int{0, 0, 1, 1}, []int{0, 0, 1, 2}, 2 / 2.5},
		{"empty", nil, nil, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := NMI(tt.a, tt.b); math.Abs(got-tt.want) > 1e-12 {
				t.Errorf("NMI = %v, want %v", got, tt.want)
			}
			if got := NMI(tt.b, tt.a); math.Abs(got-tt.want) > 1e-12 {
				t.Errorf("NMI reversed = %v, want %v", got, tt.want)
			}
		})
	}
}

func BenchmarkLeiden(b *testing.B) {
	for _, ref := range referenceGraphs {
		b.Run(ref.file, func(b *testing.B) {
			g, _ := loadShared(b, ref.file)
			b.ReportAllocs()
			seed := int64(0)
			for b.Loop() {
				Leiden(g, LeidenOptions{Seed: seed})
				seed++
			}
		})
	}
}

func BenchmarkLeidenPlanted(b *testing.B) {
	g, _, err := Planted(PlantedConfig{N: 20000, AvgDegree: 20, MaxDegree: 200, DegreeExp: 2.5,
		MinCommunity: 50, MaxCommunity: 1000, CommunityExp: 1.5, Mu: 0.3, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	for _, iters := range []int{1, 0} {
		b.Run(fmt.Sprintf("iterations=%d", iters), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Leiden(g, LeidenOptions{Seed: 1, Iterations: iters})
			}
		})
	}
}
