package graphalgo

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/stratarag/strata/internal/testctx"
)

// refCSR is the adjacency NewGraph built before buildCSR worked in place (two counting sorts):
// the reference that buildCSR must match bit for bit, duplicate weights summed in the same order.
// refCSR is the adjacency buildCSR should build: each weight rounded to float32, duplicates summed
// in float64 in edge order and the sum rounded.
func refCSR(n int, edges []Edge) (offsets []int, targets []int32, weights []float32, self []float64) {
	offsets, self = make([]int, n+1), make([]float64, n)
	cnt := make([]int, n+1)
	for _, e := range edges {
		if e.U == e.V {
			self[e.U] += e.W
			continue
		}
		cnt[e.U+1]++
		cnt[e.V+1]++
	}
	for i := 1; i <= n; i++ {
		cnt[i] += cnt[i-1]
	}
	h := cnt[n]
	bySrc, byW := make([]int32, h), make([]float64, h)
	next := make([]int, n)
	copy(next, cnt[:n])
	for _, e := range edges {
		if e.U == e.V {
			continue
		}
		p := next[e.V]
		w := float64(float32(e.W))
		bySrc[p], byW[p] = int32(e.U), w
		next[e.V]++
		p = next[e.U]
		bySrc[p], byW[p] = int32(e.V), w
		next[e.U]++
	}
	targets, sums := make([]int32, h), make([]float64, h)
	copy(next, cnt[:n])
	for t := 0; t < n; t++ {
		for p := cnt[t]; p < cnt[t+1]; p++ {
			s := bySrc[p]
			targets[next[s]], sums[next[s]] = int32(t), byW[p]
			next[s]++
		}
	}
	out := 0
	for u := 0; u < n; u++ {
		offsets[u] = out
		start := out
		for p := cnt[u]; p < cnt[u+1]; p++ {
			if out > start && targets[out-1] == targets[p] {
				sums[out-1] += sums[p]
				continue
			}
			targets[out], sums[out] = targets[p], sums[p]
			out++
		}
	}
	offsets[n] = out
	weights = make([]float32, out)
	for i, w := range sums[:out] {
		weights[i] = float32(w)
	}
	return offsets, targets[:out], weights, self
}

// sameSelfLoops reports whether g's self-loop weights are self.
func sameSelfLoops(g *Graph, self []float64) bool {
	for u, w := range self {
		if g.SelfLoop(u) != w {
			return false
		}
	}
	return len(self) == g.NumNodes()
}

// randomEdges draws m edges over n nodes with many duplicates (in both orientations) and
// self-loops, and weights whose sums depend on the order they are added in.
func randomEdges(rng *rand.Rand, n, m int) []Edge {
	edges := make([]Edge, m)
	for i := range edges {
		edges[i] = Edge{U: rng.IntN(n), V: rng.IntN(n), W: rng.Float64() * 1e3}
		if i > 0 && rng.IntN(4) == 0 { // repeat an earlier edge, maybe reversed
			e := edges[rng.IntN(i)]
			if rng.IntN(2) == 0 {
				e.U, e.V = e.V, e.U
			}
			edges[i] = Edge{U: e.U, V: e.V, W: rng.Float64()}
		}
	}
	return edges
}

// strengths lists the strength of every node of g.
func strengths(g *Graph) []float64 {
	out := make([]float64, g.NumNodes())
	for u := range out {
		out[u] = g.Strength(u)
	}
	return out
}

// asInts widens the row offsets of a graph for comparison with the reference's.
func asInts(offsets []uint32) []int {
	out := make([]int, len(offsets))
	for i, o := range offsets {
		out[i] = int(o)
	}
	return out
}

func TestBuildCSRMatchesReference(t *testing.T) {
	tests := []struct{ n, m int }{{1, 0}, {1, 3}, {2, 5}, {10, 40}, {50, 1000}, {1000, 3000}, {300, 20000}}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tt := range tests {
		edges := randomEdges(rng, tt.n, tt.m)
		offsets, targets, weights, self := refCSR(tt.n, edges)
		g := NewGraph(tt.n, edges)
		if !slices.Equal(asInts(g.offsets), offsets) || !slices.Equal(g.targets, targets) ||
			!slices.Equal(g.weights, weights) || !sameSelfLoops(g, self) {
			t.Errorf("n=%d m=%d: adjacency differs from the reference", tt.n, tt.m)
		}
		// Strengths, summed from the rows when asked, are those of the reference's rows.
		for u := range tt.n {
			want := 2 * self[u]
			for _, w := range weights[offsets[u]:offsets[u+1]] {
				want += float64(w)
			}
			if got := g.Strength(u); got != want {
				t.Errorf("n=%d m=%d: strength of %d = %v, want %v", tt.n, tt.m, u, got, want)
				break
			}
		}
		h, err := NewGraphFromSource(tt.n, edgesSource(edges))
		if err != nil {
			t.Fatalf("NewGraphFromSource: %v", err)
		}
		if !slices.Equal(asInts(h.offsets), offsets) || !slices.Equal(h.targets, targets) ||
			!slices.Equal(h.weights, weights) || !slices.Equal(strengths(h), strengths(g)) || h.total != g.total {
			t.Errorf("n=%d m=%d: NewGraphFromSource differs from NewGraph", tt.n, tt.m)
		}
	}
}

func TestNewGraphFromSourceChecks(t *testing.T) {
	failing := errors.New("read failed")
	reads := 0
	tests := []struct {
		name  string
		n     int
		edges EdgeSource
	}{
		{"negative n", -1, edgesSource(nil)},
		{"out of range", 2, edgesSource([]Edge{{0, 2, 1}})},
		{"negative node", 2, edgesSource([]Edge{{-1, 0, 1}})},
		{"negative weight", 2, edgesSource([]Edge{{0, 1, -1}})},
		{"NaN weight", 2, edgesSource([]Edge{{0, 1, math.NaN()}})},
		{"read error", 2, func(func(u, v int32, w float64) error) error { return failing }},
		// The second read gives an edge the first did not count, or one fewer edge.
		{"changed edge", 3, func(yield func(u, v int32, w float64) error) error {
			reads++
			if err := yield(0, 1, 1); err != nil {
				return err
			}
			return yield(1, int32(1+reads%2), 1)
		}},
		{"fewer edges", 3, func(yield func(u, v int32, w float64) error) error {
			reads++
			if err := yield(0, 1, 1); err != nil || reads%2 == 0 {
				return err
			}
			return yield(1, 2, 1)
		}},
	}
	for _, tt := range tests {
		reads = 0
		if _, err := NewGraphFromSource(tt.n, tt.edges); err == nil {
			t.Errorf("%s: no error", tt.name)
		}
	}
	if _, err := NewGraphFromSource(2, func(func(u, v int32, w float64) error) error { return failing }); !errors.Is(err, failing) {
		t.Errorf("read error: got %v, want it passed on", err)
	}
}

func TestWCCSourceRange(t *testing.T) {
	if _, _, err := WCCSource(2, edgesSource([]Edge{{0, 2, 1}})); err == nil {
		t.Error("WCCSource: no error for an edge out of range")
	}
}

// TestLeidenLevelsMatchesModularity checks that LeidenLevels' levels are what Leiden returns and
// that each modularity is that of Modularity on the level, which renumbers it: the levels must be
// dense in order of first node for the shortcut LeidenLevels takes.
func TestLeidenLevelsMatchesModularity(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, tt := range []struct{ n, m int }{{1, 0}, {4, 0}, {30, 60}, {500, 2000}, {3000, 9000}} {
		g := NewGraph(tt.n, randomEdges(rng, tt.n, tt.m))
		levels, mods, err := LeidenLevels(t.Context(), g, LeidenOptions{Seed: 7})
		if err != nil {
			t.Fatal(err)
		}
		res := Leiden(g, LeidenOptions{Seed: 7})
		if len(levels) != len(res.Levels) || !slices.Equal(mods, res.Modularity) {
			t.Fatalf("n=%d m=%d: %d levels, modularity %v; Leiden: %d, %v", tt.n, tt.m, len(levels), mods, len(res.Levels), res.Modularity)
		}
		for k, lv := range levels {
			for i, c := range lv {
				if int(c) != res.Levels[k][i] {
					t.Fatalf("n=%d m=%d: level %d node %d: %d, Leiden %d", tt.n, tt.m, k, i, c, res.Levels[k][i])
				}
			}
			if q := Modularity(g, res.Levels[k], 1); q != mods[k] {
				t.Errorf("n=%d m=%d: level %d modularity %v, Modularity says %v", tt.n, tt.m, k, mods[k], q)
			}
		}
	}
}

// TestAggregateExactSize checks the aggregate graph against its definition (the weight between
// two groups is the sum of the edges between their members, the weight inside a group its
// self-loop) and that its adjacency is allocated at its size.
func TestAggregateExactSize(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, tt := range []struct{ n, m, groups int }{{5, 8, 2}, {100, 400, 10}, {1000, 5000, 300}} {
		g := NewGraph(tt.n, randomEdges(rng, tt.n, tt.m))
		ref := make([]int32, tt.n)
		for i := range ref {
			ref[i] = int32(rng.IntN(tt.groups))
		}
		l := newLeiden(tt.n, LeidenOptions{})
		nr := l.relabel(ref, tt.groups)
		agg := l.aggregate(g, ref, nr, new(Graph))
		if cap(agg.targets) != len(agg.targets) || cap(agg.weights) != len(agg.weights) {
			t.Errorf("n=%d: adjacency of %d entries allocated at %d", tt.n, len(agg.targets), cap(agg.targets))
		}
		want := map[[2]int32]float64{}
		self := make([]float64, nr)
		for u := range tt.n {
			self[ref[u]] += g.SelfLoop(u)
			ts, ws := g.Neighbors(u)
			for i, v := range ts {
				if ref[v] == ref[u] {
					self[ref[u]] += float64(ws[i]) / 2
				} else {
					want[[2]int32{ref[u], ref[v]}] += float64(ws[i])
				}
			}
		}
		got := 0
		for c := range nr {
			ts, ws := agg.Neighbors(c)
			for i, d := range ts {
				if w := want[[2]int32{int32(c), d}]; math.Abs(w-float64(ws[i])) > 1e-6*max(1, w) {
					t.Errorf("n=%d: weight %d-%d = %v, want %v", tt.n, c, d, ws[i], w)
				}
				got++
			}
			if math.Abs(agg.self[c]-self[c]) > 1e-9*max(1, self[c]) {
				t.Errorf("n=%d: self-loop of %d = %v, want %v", tt.n, c, agg.self[c], self[c])
			}
		}
		if got != len(want) {
			t.Errorf("n=%d: %d adjacency entries, want %d", tt.n, got, len(want))
		}
	}
}

func TestLeidenLevelsCancelled(t *testing.T) {
	g := NewGraph(3000, randomEdges(rand.New(rand.NewPCG(9, 10)), 3000, 9000))
	// One iteration: LeidenLevels itself checks the context once, after it; the second and
	// later checks are made by the iteration, level by level.
	opt := LeidenOptions{Seed: 7, Iterations: 1}
	levels, _, err := LeidenLevels(testctx.Countdown(t.Context(), 1<<30), g, opt)
	if err != nil || len(levels) < 2 {
		t.Fatalf("not cancelled: %d levels, error %v; want several levels", len(levels), err)
	}
	for _, checks := range []int{1, 2, 3} {
		levels, _, err := LeidenLevels(testctx.Countdown(t.Context(), checks), g, opt)
		if !errors.Is(err, context.Canceled) || levels != nil {
			t.Errorf("cancelled at check %d: %d levels, error %v; want none and context.Canceled", checks, len(levels), err)
		}
	}
}

// TestLeidenLevelsRecomputesFirstIteration: on graphs whose first iteration later iterations
// cannot improve on (cliques in a ring, and with a random shuffle of their node numbers),
// LeidenLevels drops the first iteration's levels during the later ones and computes them again,
// so they must be exactly those of a single iteration.
func TestLeidenLevelsRecomputesFirstIteration(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, tt := range []struct{ cliques, size int }{{4, 5}, {30, 6}, {200, 8}} {
		n := tt.cliques * tt.size
		perm := rng.Perm(n)
		var edges []Edge
		for c := range tt.cliques {
			for i := range tt.size {
				for j := i + 1; j < tt.size; j++ {
					edges = append(edges, Edge{U: perm[c*tt.size+i], V: perm[c*tt.size+j], W: 1})
				}
			}
			next := (c + 1) % tt.cliques
			edges = append(edges, Edge{U: perm[c*tt.size], V: perm[next*tt.size+1], W: 1})
		}
		g := NewGraph(n, edges)
		once, _, err := LeidenLevels(t.Context(), g, LeidenOptions{Seed: 3, Iterations: 1})
		if err != nil {
			t.Fatal(err)
		}
		again, _, err := LeidenLevels(t.Context(), g, LeidenOptions{Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(once, again) {
			t.Errorf("%d cliques of %d: %d levels with one iteration, %d with more; they differ", tt.cliques, tt.size, len(once), len(again))
		}
	}
}

// TestAggregateReusesStorage checks that an aggregate built in the storage of an earlier, larger
// one is the aggregate built afresh: Leiden builds every level's in one of two graphs it reuses.
func TestAggregateReusesStorage(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	g := NewGraph(500, randomEdges(rng, 500, 3000))
	l := newLeiden(500, LeidenOptions{})
	var dst Graph
	for _, groups := range []int{300, 40, 120, 7} {
		ref := make([]int32, 500)
		for i := range ref {
			ref[i] = int32(rng.IntN(groups))
		}
		nr := l.relabel(ref, groups)
		got := l.aggregate(g, ref, nr, &dst)
		want := l.aggregate(g, ref, nr, new(Graph))
		if !slices.Equal(got.offsets, want.offsets) || !slices.Equal(got.targets, want.targets) ||
			!slices.Equal(got.weights, want.weights) || !slices.Equal(got.self, want.self) ||
			!slices.Equal(got.strength, want.strength) || got.total != want.total || got.NumNodes() != nr {
			t.Errorf("%d groups: the aggregate built in reused storage differs from a fresh one", groups)
		}
	}
}

// TestExpandedStepsMatchLastLevel checks the two ways an iteration hands back its levels: from
// the same random state and start, the last of its steps mapped to the input nodes is the last
// level it writes when asked for that alone, on plain and constrained iterations, and no mapped
// level of a constrained iteration puts nodes of two constraint groups together.
func TestExpandedStepsMatchLastLevel(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for _, tt := range []struct{ n, m int }{{10, 20}, {500, 2000}, {3000, 9000}} {
		g := NewGraph(tt.n, randomEdges(rng, tt.n, tt.m))
		opt := LeidenOptions{Seed: 5}.withDefaults()
		cons := make([]int32, tt.n)
		for i := range cons {
			cons[i] = int32(i % 3)
		}
		for _, c := range [][]int32{nil, cons} {
			singletons := func() []int32 {
				p := make([]int32, tt.n)
				for i := range p {
					p[i] = int32(i)
				}
				return p
			}
			l := newLeiden(tt.n, opt)
			start := *l.src
			_, lastPart := l.run(g, singletons(), c, opt, false, nil)
			last := make([]int32, tt.n)
			for i, m := range l.member {
				last[i] = lastPart[m]
			}
			// The last level read through the node map has the modularity of its copy.
			if got, want := l.modularity(g, lastPart, l.member, int(slices.Max(last))+1), modularityDense(g, last, int(slices.Max(last))+1, opt.Gamma); got != want {
				t.Errorf("n=%d constrained=%v: modularity through the node map %v, of the mapped level %v", tt.n, c != nil, got, want)
			}
			*l.src = start
			steps, _ := l.run(g, singletons(), c, opt, true, nil)
			if len(steps) == 0 || steps[len(steps)-1].ref != nil {
				t.Fatalf("n=%d constrained=%v: %d steps, the last with a map to a next level", tt.n, c != nil, len(steps))
			}
			raw := expandLevels(steps, make([]int32, tt.n))
			if !slices.Equal(raw[len(raw)-1], last) {
				t.Errorf("n=%d constrained=%v: the expanded last level differs from the one written alone", tt.n, c != nil)
			}
			if len(raw) < 2 {
				t.Errorf("n=%d constrained=%v: %d level; the graph should take several", tt.n, c != nil, len(raw))
			}
			for k, lv := range raw {
				group := map[int32]int32{} // community -> constraint group of its first node
				for i, x := range lv {
					if c == nil {
						break
					}
					if gr, ok := group[x]; !ok {
						group[x] = c[i]
					} else if gr != c[i] {
						t.Fatalf("n=%d: level %d puts nodes of two constraint groups together", tt.n, k)
					}
				}
			}
		}
	}
}
