package graphalgo

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// checkPath verifies that path is a walk from src to dst along edges of g and returns its hop
// count and its cost under cost.
func checkPath(t *testing.T, g *Graph, path []int, src, dst int, cost func(float64) float64) (int, float64) {
	t.Helper()
	if len(path) == 0 || path[0] != src || path[len(path)-1] != dst {
		t.Fatalf("path %v does not run from %d to %d", path, src, dst)
	}
	var total float64
	for i := 1; i < len(path); i++ {
		ts, ws := g.Neighbors(path[i-1])
		j, ok := slices.BinarySearch(ts, int32(path[i]))
		if !ok {
			t.Fatalf("path %v uses the non-edge %d-%d", path, path[i-1], path[i])
		}
		total += cost(float64(ws[j]))
	}
	return len(path) - 1, total
}

func identity(w float64) float64 { return w }

func TestShortestPathsMatchNetworkx(t *testing.T) {
	for _, fg := range loadFixture(t) {
		t.Run(fg.Name, func(t *testing.T) {
			unit, _ := graphFor(t, fg)
			if unit.NumNodes() != fg.N || unit.NumEdges() != fg.M {
				t.Fatalf("graph has n=%d m=%d, fixture n=%d m=%d", unit.NumNodes(), unit.NumEdges(), fg.N, fg.M)
			}
			pairs := make([]Pair, len(fg.Pairs))
			for i, p := range fg.Pairs {
				pairs[i] = Pair{int(p[0]), int(p[1])}
			}
			for _, maxHops := range []int{0, 1, 2, 3} {
				batch := ShortestPaths(unit, pairs, maxHops)
				for i, p := range pairs {
					want := int(fg.Pairs[i][2])
					if maxHops > 0 && want > maxHops {
						want = -1
					}
					got := batch[i]
					if want < 0 {
						if got != nil {
							t.Errorf("BFS %d->%d (max %d hops) = %v, want none", p.Src, p.Dst, maxHops, got)
						}
						continue
					}
					if got == nil {
						t.Errorf("BFS %d->%d (max %d hops) = none, want %d hops", p.Src, p.Dst, maxHops, want)
						continue
					}
					if hops, _ := checkPath(t, unit, got, p.Src, p.Dst, identity); hops != want {
						t.Errorf("BFS %d->%d (max %d hops) has %d hops, networkx %d", p.Src, p.Dst, maxHops, hops, want)
					}
				}
			}
		})
	}
}

func TestShortestPathEdgeCases(t *testing.T) {
	// 0-1-2-3 path plus a heavy shortcut 0-3 and an isolated node 4.
	g := NewGraph(5, []Edge{{0, 1, 1}, {1, 2, 1}, {2, 3, 1}, {0, 3, 10}})
	tests := []struct {
		name          string
		src, dst, max int
		want          []int
	}{
		{"same node", 2, 2, 0, []int{2}},
		{"fewest edges, whatever the weight", 0, 3, 0, []int{0, 3}},
		{"within the hop limit", 0, 3, 1, []int{0, 3}},
		{"beyond the hop limit", 0, 2, 1, nil},
		{"isolated", 0, 4, 0, nil},
		{"source out of range", -1, 2, 0, nil},
		{"destination out of range", 1, 9, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ShortestPaths(g, []Pair{{tt.src, tt.dst}}, tt.max)[0]; !slices.Equal(got, tt.want) {
				t.Errorf("BFS = %v, want %v", got, tt.want)
			}
		})
	}
	// Batch results follow the order of the pairs, with repeated and invalid pairs.
	pairs := []Pair{{3, 0}, {0, 2}, {3, 1}, {0, 2}, {7, 0}, {2, 2}}
	want := [][]int{{3, 0}, {0, 1, 2}, {3, 0, 1}, {0, 1, 2}, nil, {2}} // ties: lowest neighbour first
	if got := ShortestPaths(g, pairs, 0); !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("ShortestPaths = %v, want %v", got, want)
	}
	// A PathFinder reused across many searches gives the same answers.
	pf := NewPathFinder(g)
	for range 3 {
		for i, p := range pairs {
			if got := pf.BatchBFS([]Pair{p}, 0)[0]; !slices.Equal(got, want[i]) {
				t.Errorf("reused PathFinder: %v = %v, want %v", p, got, want[i])
			}
		}
	}
}

// TestBFSMatchesLevels: on random graphs with hubs (summary entities are hubs), the two-sided
// search finds a path of exactly the length a one-sided level-by-level search measures, for
// every hop limit, and none when the limit is below it.
func TestBFSMatchesLevels(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for trial := range 20 {
		n := 50 + rng.IntN(300)
		var edges []Edge
		for range n + rng.IntN(2*n) {
			edges = append(edges, Edge{rng.IntN(n), rng.IntN(n), 1})
		}
		for range 3 { // hubs
			h := rng.IntN(n)
			for range n / 10 {
				edges = append(edges, Edge{h, rng.IntN(n), 1})
			}
		}
		g := NewGraph(n, edges)
		pf := NewPathFinder(g)
		for range 30 {
			src, dst := rng.IntN(n), rng.IntN(n)
			want := levels(g, src)[dst]
			for _, maxHops := range []int{0, 1, 2, 3, 4, 6} {
				got := pf.BatchBFS([]Pair{{src, dst}}, maxHops)[0]
				if want < 0 || maxHops > 0 && want > maxHops {
					if got != nil {
						t.Fatalf("trial %d: %d->%d (max %d hops) = %v, want none", trial, src, dst, maxHops, got)
					}
					continue
				}
				if got == nil {
					t.Fatalf("trial %d: %d->%d (max %d hops) = none, want %d hops", trial, src, dst, maxHops, want)
				}
				if hops, _ := checkPath(t, g, got, src, dst, identity); hops != want {
					t.Fatalf("trial %d: %d->%d (max %d hops) has %d hops, want %d", trial, src, dst, maxHops, hops, want)
				}
			}
		}
	}
}

// levels is every node's distance in edges from src (-1 when unreachable), by a plain BFS.
func levels(g *Graph, src int) []int {
	dist := make([]int, g.NumNodes())
	for i := range dist {
		dist[i] = -1
	}
	dist[src] = 0
	for q := []int{src}; len(q) > 0; q = q[1:] {
		ts, _ := g.Neighbors(q[0])
		for _, v := range ts {
			if dist[v] < 0 {
				dist[v] = dist[q[0]] + 1
				q = append(q, int(v))
			}
		}
	}
	return dist
}

func BenchmarkShortestPaths(b *testing.B) {
	g, _ := loadShared(b, "lfr_n1000_mu0.3.gml")
	pairs := make([]Pair, 0, 1000)
	for i := range 1000 {
		pairs = append(pairs, Pair{(i * 37) % 50, (i * 7919) % g.NumNodes()})
	}
	for b.Loop() {
		ShortestPaths(g, pairs, 0)
	}
}
