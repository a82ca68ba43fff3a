package graphalgo

import (
	"context"
	"slices"
	"testing"
)

// sameCommunities counts the communities of b whose member set is a community of a.
func sameCommunities(a, b []int32) (same, total int) {
	sets := func(p []int32) map[int32][]int {
		m := map[int32][]int{}
		for u, c := range p {
			m[c] = append(m[c], u)
		}
		return m
	}
	sa, sb := sets(a), sets(b)
	for _, mb := range sb {
		if ma, ok := sa[a[mb[0]]]; ok && slices.Equal(ma, mb) {
			same++
		}
	}
	return same, len(sb)
}

func plantedForSeeding(t *testing.T) *Graph {
	t.Helper()
	g, _, err := Planted(PlantedConfig{N: 3000, AvgDegree: 10, MaxDegree: 60, DegreeExp: 2.5,
		MinCommunity: 10, MaxCommunity: 150, CommunityExp: 1.5, Mu: 0.35, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestLeidenSeededUnchanged: seeded with its own hierarchy on the same graph, with a frontier
// and nothing affected, Leiden gives that hierarchy back exactly.
func TestLeidenSeededUnchanged(t *testing.T) {
	g := plantedForSeeding(t)
	ctx := context.Background()
	levels, q, err := LeidenLevels(ctx, g, LeidenOptions{Seed: 42})
	if err != nil {
		t.Fatal(err)
	}
	if len(levels) < 2 {
		t.Fatalf("want a hierarchy of several levels, got %d", len(levels))
	}
	seeded, sq, err := LeidenLevels(ctx, g, LeidenOptions{Seed: 42, Initial: levels, Frontier: true})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.EqualFunc(seeded, levels, slices.Equal) || !slices.Equal(sq, q) {
		t.Errorf("seeded with its own levels (modularity %v), Leiden gave other levels (%v)", q, sq)
	}
}

// TestLeidenSeededChange: one node added next to two others moves only what is near it: the
// hierarchy keeps its number of levels, most communities of every level keep their members, and
// modularity stays within 2 % of a fresh run's at every level.
func TestLeidenSeededChange(t *testing.T) {
	g := plantedForSeeding(t)
	ctx := context.Background()
	levels, _, err := LeidenLevels(ctx, g, LeidenOptions{Seed: 42})
	if err != nil {
		t.Fatal(err)
	}
	n := g.NumNodes()
	var edges []Edge
	for u := range n {
		ts, ws := g.Neighbors(u)
		for i, v := range ts {
			if u <= int(v) {
				edges = append(edges, Edge{U: u, V: int(v), W: float64(ws[i])})
			}
		}
	}
	edges = append(edges, Edge{U: n, V: 0, W: 1}, Edge{U: n, V: 1, W: 1})
	h := NewGraph(n+1, edges)
	initial := make([][]int32, len(levels))
	for k, lv := range levels {
		initial[k] = append(slices.Clone(lv), -1)
	}
	seeded, sq, err := LeidenLevels(ctx, h, LeidenOptions{Seed: 42, Initial: initial, Frontier: true, Affected: []int32{0, 1}})
	if err != nil {
		t.Fatal(err)
	}
	_, fq, err := LeidenLevels(ctx, h, LeidenOptions{Seed: 42})
	if err != nil {
		t.Fatal(err)
	}
	if len(seeded) != len(levels) {
		t.Fatalf("seeded run has %d levels, the seeding hierarchy %d", len(seeded), len(levels))
	}
	for k := range seeded {
		same, total := sameCommunities(initial[k][:n], seeded[k][:n])
		t.Logf("level %d (finest first): %d of %d communities kept, modularity %.4f (fresh %.4f)", k, same, total, sq[k], fq[min(k, len(fq)-1)])
		if same < total-3 {
			t.Errorf("level %d: %d of %d communities kept, want all but the few near the new node", k, same, total)
		}
	}
	// Coarsest first, as strata stores levels and compares them (graph.Drifted).
	for i := 0; i < min(len(sq), len(fq)); i++ {
		a, b := sq[len(sq)-1-i], fq[len(fq)-1-i]
		if a < 0.98*b {
			t.Errorf("coarsest level %d: modularity %.4f seeded, %.4f fresh", i, a, b)
		}
	}
}

func TestLeidenSeededInvalid(t *testing.T) {
	g := NewGraph(3, []Edge{{U: 0, V: 1, W: 1}, {U: 1, V: 2, W: 1}})
	for _, opt := range []LeidenOptions{
		{Initial: [][]int32{{0, 0}}},
		{Initial: [][]int32{{0, 0, 3}}},
		{Initial: [][]int32{{0, 0, -2}}},
		{Initial: [][]int32{{0, 0, 1}}, Frontier: true, Affected: []int32{3}},
	} {
		if _, _, err := LeidenLevels(context.Background(), g, opt); err == nil {
			t.Errorf("LeidenLevels with %+v succeeded", opt)
		}
	}
}

// TestLeidenSeededDeletion: a few nodes of one community deleted, as a document's entities are,
// move only the communities near them. The intermediate levels of a hierarchy are local optima
// only within the coarser levels that were computed with them, so a seeded run whose moves
// cascaded across those would rework communities far from the change.
func TestLeidenSeededDeletion(t *testing.T) {
	for _, seed := range []int64{1, 2, 3, 4, 5} {
		g, _, err := Planted(PlantedConfig{N: 5000, AvgDegree: 8, MaxDegree: 80, DegreeExp: 2.5,
			MinCommunity: 5, MaxCommunity: 300, CommunityExp: 1.5, Mu: 0.45, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		levels, _, err := LeidenLevels(ctx, g, LeidenOptions{Seed: 42})
		if err != nil {
			t.Fatal(err)
		}
		n := g.NumNodes()
		// The deleted nodes: up to 5 of the finest community of node 0.
		deleted := map[int]bool{}
		for u, c := range levels[0] {
			if c == levels[0][0] && len(deleted) < 5 {
				deleted[u] = true
			}
		}
		newID := make([]int, n)
		k := 0
		for u := range n {
			newID[u] = -1
			if !deleted[u] {
				newID[u] = k
				k++
			}
		}
		var edges []Edge
		affected := map[int32]bool{}
		for u := range n {
			ts, ws := g.Neighbors(u)
			for i, v := range ts {
				switch {
				case deleted[u] && !deleted[int(v)]:
					affected[int32(newID[v])] = true
				case !deleted[u] && !deleted[int(v)] && u <= int(v):
					edges = append(edges, Edge{U: newID[u], V: newID[v], W: float64(ws[i])})
				}
			}
		}
		h := NewGraph(k, edges)
		initial := make([][]int32, len(levels))
		for l, lv := range levels {
			initial[l] = make([]int32, k)
			for u, c := range lv {
				if newID[u] >= 0 {
					initial[l][newID[u]] = c
				}
			}
		}
		var aff []int32
		for u := range affected {
			aff = append(aff, u)
		}
		slices.Sort(aff)
		seeded, sq, err := LeidenLevels(ctx, h, LeidenOptions{Seed: 42, Initial: initial, Frontier: true, Affected: aff})
		if err != nil {
			t.Fatal(err)
		}
		_, fq, err := LeidenLevels(ctx, h, LeidenOptions{Seed: 42})
		if err != nil {
			t.Fatal(err)
		}
		for l := range seeded {
			same, total := sameCommunities(initial[l], seeded[l])
			// The communities that held a deleted node or hold an affected one.
			near := map[int32]bool{}
			for u := range affected {
				near[initial[l][u]] = true
			}
			t.Logf("graph %d, level %d (finest first): %d of %d communities kept, %d near the change, modularity %.4f (fresh %.4f)",
				seed, l, same, total, len(near), sq[l], fq[min(l, len(fq)-1)])
			if total-same > 2*len(near)+2 {
				t.Errorf("graph %d, level %d: %d of %d communities changed, %d near the change", seed, l, total-same, total, len(near))
			}
		}
		// The levels' count may differ from a fresh run's, which makes only the coarsest
		// comparable.
		if a, b := sq[len(sq)-1], fq[len(fq)-1]; a < 0.98*b {
			t.Errorf("graph %d, coarsest level: modularity %.4f seeded, %.4f fresh", seed, a, b)
		}
	}
}
