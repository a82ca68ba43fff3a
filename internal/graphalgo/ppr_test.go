package graphalgo

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// The expected scores are worked by hand from the definition (PersonalizedPageRank's comment):
// start (1-d)·w at the seeds, then each superstep passes d times the last growth on, split by
// edge weight. On the path a–b–c seeded at a with d = ½ the fixed point solves
// a = ½ + ½·b/2, b = ½·(a + c), c = ½·b/2: a = 7/12, b = 1/3, c = 1/12.
func TestPersonalizedPageRank(t *testing.T) {
	path := NewGraph(3, []Edge{{0, 1, 1}, {1, 2, 1}})
	star := NewGraph(3, []Edge{{0, 1, 3}, {0, 2, 1}}) // centre 0, heavy leaf 1, light leaf 2
	lone := NewGraph(2, nil)
	half := func(iters int, tol float64) PPROptions {
		return PPROptions{Damping: 0.5, MaxIterations: iters, Tolerance: tol}
	}
	for _, tc := range []struct {
		name  string
		g     *Graph
		seeds []Seed
		opt   PPROptions
		want  []float64
	}{
		{"converged path", path, []Seed{{0, 1}}, half(200, 0), []float64{7.0 / 12, 1.0 / 3, 1.0 / 12}},
		{"one step", path, []Seed{{0, 1}}, half(2, 0), []float64{0.5, 0.25, 0}},
		{"two steps", path, []Seed{{0, 1}}, half(3, 0), []float64{0.5625, 0.25, 0.0625}},
		// b grows by .25, not more than the tolerance: it keeps it but passes nothing on.
		{"tolerance stops", path, []Seed{{0, 1}}, half(200, 0.3), []float64{0.5, 0.25, 0}},
		{"only the start", path, []Seed{{0, 1}}, half(1, 0), []float64{0.5, 0, 0}},
		{"weighted edges", star, []Seed{{0, 1}}, half(2, 0), []float64{0.5, 0.1875, 0.0625}},
		// Linear in the seeds: a and c each give their own walk's scores, mirrored.
		{"two seeds", path, []Seed{{0, 1}, {2, 1}}, half(200, 0), []float64{2.0 / 3, 2.0 / 3, 2.0 / 3}},
		{"seed weights", path, []Seed{{0, 2}, {2, 1}}, half(200, 0), []float64{15.0 / 12, 1, 9.0 / 12}},
		{"repeated seed sums", path, []Seed{{0, 1}, {0, 1}}, half(200, 0), []float64{14.0 / 12, 2.0 / 3, 2.0 / 12}},
		{"ignored seeds", path, []Seed{{-1, 1}, {3, 1}, {1, 0}, {2, -1}}, half(200, 0), []float64{0, 0, 0}},
		// Mass reaching a node without edges stays there.
		{"isolated seed", lone, []Seed{{1, 1}}, half(20, 0), []float64{0, 0.5}},
		{"no damping", path, []Seed{{1, 1}}, PPROptions{MaxIterations: 20}, []float64{0, 1, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := PersonalizedPageRank(tc.g, tc.seeds, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			for v := range tc.want {
				if math.Abs(got[v]-tc.want[v]) > 1e-12 {
					t.Errorf("node %d: %v, want %v (all %v)", v, got[v], tc.want[v], got)
				}
			}
		})
	}
}

func TestPersonalizedPageRankOptions(t *testing.T) {
	g := NewGraph(2, []Edge{{0, 1, 1}})
	for _, opt := range []PPROptions{
		{Damping: 1, MaxIterations: 10},
		{Damping: -0.1, MaxIterations: 10},
		{Damping: math.NaN(), MaxIterations: 10},
		{Damping: 0.5, MaxIterations: 0},
		{Damping: 0.5, MaxIterations: 10, Tolerance: -1},
	} {
		if _, err := PersonalizedPageRank(g, []Seed{{0, 1}}, opt); err == nil {
			t.Errorf("%+v: no error", opt)
		}
	}
}

// TestTopNodes: ties (here exact, by symmetry) go to the lower id, zero scores are left out,
// and keep filters.
func TestTopNodes(t *testing.T) {
	// A star of four leaves around 0, seeded at the centre: the leaves tie.
	g := NewGraph(5, []Edge{{0, 1, 1}, {0, 2, 1}, {0, 3, 1}, {0, 4, 1}})
	score, err := PersonalizedPageRank(g, []Seed{{0, 1}}, PPROptions{Damping: 0.85, MaxIterations: 30})
	if err != nil {
		t.Fatal(err)
	}
	byID := func(a, b int) int { return cmp.Compare(a, b) }
	for _, tc := range []struct {
		k    int
		keep func(int) bool
		want []int
	}{
		{10, nil, []int{0, 1, 2, 3, 4}},
		{3, nil, []int{0, 1, 2}},
		{2, func(v int) bool { return v != 0 && v != 1 }, []int{2, 3}},
	} {
		if got := TopNodes(score, tc.k, tc.keep, byID); !slices.Equal(got, tc.want) {
			t.Errorf("k %d: %v, want %v", tc.k, got, tc.want)
		}
	}
	unreached := make([]float64, 3)
	if got := TopNodes(unreached, 3, nil, byID); len(got) != 0 {
		t.Errorf("unreached: %v", got)
	}
}

// TestPersonalizedPageRankDeterministic: the same call gives the same bits.
func TestPersonalizedPageRankDeterministic(t *testing.T) {
	g, _, err := Planted(PlantedConfig{N: 2000, AvgDegree: 10, MaxDegree: 50, DegreeExp: 2.5,
		MinCommunity: 20, MaxCommunity: 200, CommunityExp: 1.5, Mu: 0.3, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	seeds := []Seed{{5, 1}, {77, 0.5}, {1500, 0.25}}
	opt := PPROptions{Damping: 0.5, MaxIterations: 20, Tolerance: 1e-7}
	a, err := PersonalizedPageRank(g, seeds, opt)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := PersonalizedPageRank(g, seeds, opt)
	if !slices.Equal(a, b) {
		t.Fatal("two runs differ")
	}
	var sum float64
	for _, s := range a {
		sum += s
	}
	// The walk never leaves the graph here (no node is isolated) and is cut short only by
	// the iterations and the tolerance, so nearly all of the seeds' 1.75 is found.
	if sum > 1.75+1e-9 || sum < 1.74 {
		t.Errorf("total score %v, want about 1.75", sum)
	}
}

// BenchmarkPersonalizedPageRank times one query on the graph bench/leiden runs Leiden on (about
// 100k nodes and 1M edges, bench/leiden's plantedDefaults), seeded as hi seeds it: 20 entities
// and 10 chunks.
func BenchmarkPersonalizedPageRank(b *testing.B) {
	g, _, err := Planted(PlantedConfig{N: 100_000, AvgDegree: 21, MaxDegree: 200, DegreeExp: 2.5,
		MinCommunity: 50, MaxCommunity: 2000, CommunityExp: 1.5, Mu: 0.3, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	seeds := make([]Seed, 30)
	for i := range seeds {
		seeds[i] = Seed{Node: rng.IntN(g.NumNodes()), Weight: 1 / float64(len(seeds))}
	}
	byID := func(a, b int) int { return cmp.Compare(a, b) }
	for _, tc := range []struct {
		name string
		opt  PPROptions
	}{
		{"d=0.5,tol=1e-7", PPROptions{Damping: 0.5, MaxIterations: 20, Tolerance: 1e-7}},
		{"d=0.85,tol=1e-7", PPROptions{Damping: 0.85, MaxIterations: 20, Tolerance: 1e-7}},
		{"d=0.5,tol=0", PPROptions{Damping: 0.5, MaxIterations: 20}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				score, err := PersonalizedPageRank(g, seeds, tc.opt)
				if err != nil {
					b.Fatal(err)
				}
				TopNodes(score, 10, nil, byID)
			}
		})
	}
}
