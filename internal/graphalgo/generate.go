package graphalgo

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// PlantedConfig describes a random graph with planted communities in the spirit of the LFR
// benchmark (Lancichinetti, Fortunato and Radicchi 2008): power-law degrees and community sizes,
// and a mixing parameter giving the fraction of each node's edges that leave its community.
type PlantedConfig struct {
	N            int     // number of nodes
	AvgDegree    float64 // target mean degree
	MaxDegree    int     // largest degree
	DegreeExp    float64 // exponent of the degree distribution (LFR's tau1, typically 2 to 3)
	MinCommunity int     // smallest community size
	MaxCommunity int     // largest community size
	CommunityExp float64 // exponent of the community size distribution (tau2, typically 1 to 2)
	Mu           float64 // mixing parameter in [0, 1]
	Seed         int64
}

// Planted generates a graph from cfg and returns it with the planted community of every node.
// Unlike the reference LFR generator it does not rewire to hit the degrees exactly: stubs are
// paired at random inside each community (internal edges) and across the whole graph (external
// edges), and self-loops, duplicates and external pairs that land inside one community are
// dropped, so degrees and the realised mixing come out slightly below the targets. It is meant
// for benchmarks, where a fixed seed and the right overall shape matter more than exactness.
// The result is deterministic for a given cfg.
func Planted(cfg PlantedConfig) (*Graph, []int, error) {
	switch {
	case cfg.N <= 0:
		return nil, nil, fmt.Errorf("planted graph: N = %d, want > 0", cfg.N)
	case cfg.MinCommunity < 2 || cfg.MaxCommunity < cfg.MinCommunity || cfg.MaxCommunity > cfg.N:
		return nil, nil, fmt.Errorf("planted graph: community sizes [%d, %d] invalid for N = %d",
			cfg.MinCommunity, cfg.MaxCommunity, cfg.N)
	case cfg.MaxDegree < 1 || cfg.AvgDegree < 1 || cfg.AvgDegree >= float64(cfg.MaxDegree):
		return nil, nil, fmt.Errorf("planted graph: want 1 <= AvgDegree < MaxDegree, got %v and %d",
			cfg.AvgDegree, cfg.MaxDegree)
	case cfg.DegreeExp <= 1 || cfg.CommunityExp <= 1:
		return nil, nil, fmt.Errorf("planted graph: exponents must exceed 1, got %v and %v",
			cfg.DegreeExp, cfg.CommunityExp)
	case cfg.Mu < 0 || cfg.Mu > 1:
		return nil, nil, fmt.Errorf("planted graph: Mu = %v, want [0, 1]", cfg.Mu)
	}
	rng := rand.New(rand.NewPCG(uint64(cfg.Seed), 0x91a7ed))
	n := cfg.N

	// Degrees from a continuous power law on [xmin, MaxDegree], with xmin found by bisection
	// so that the mean matches AvgDegree.
	xmax := float64(cfg.MaxDegree)
	lo, hi := 1.0, cfg.AvgDegree
	for range 100 {
		mid := (lo + hi) / 2
		if powerLawMean(mid, xmax, cfg.DegreeExp) < cfg.AvgDegree {
			lo = mid
		} else {
			hi = mid
		}
	}
	deg := make([]int, n)
	for i := range deg {
		deg[i] = max(1, int(math.Round(samplePowerLaw(rng, lo, xmax, cfg.DegreeExp))))
	}

	// Community sizes until they cover all nodes; the last one absorbs the remainder.
	var sizes []int
	for total := 0; total < n; {
		s := int(math.Round(samplePowerLaw(rng, float64(cfg.MinCommunity), float64(cfg.MaxCommunity), cfg.CommunityExp)))
		if total+s > n {
			s = n - total
			if s < cfg.MinCommunity && len(sizes) > 0 {
				sizes[len(sizes)-1] += s // too small on its own: merge into the previous one
				total = n
				break
			}
		}
		sizes = append(sizes, s)
		total += s
	}

	// Nodes in random order fill the communities in turn.
	perm := rng.Perm(n)
	comm := make([]int, n)
	members := make([][]int, len(sizes))
	next := 0
	for c, s := range sizes {
		for _, u := range perm[next : next+s] {
			comm[u] = c
			members[c] = append(members[c], u)
		}
		next += s
	}

	var edges []Edge
	var external []int
	for c := range members {
		var stubs []int
		for _, u := range members[c] {
			in := int(math.Round((1 - cfg.Mu) * float64(deg[u])))
			in = min(in, len(members[c])-1)
			for range in {
				stubs = append(stubs, u)
			}
			for range deg[u] - in {
				external = append(external, u)
			}
		}
		edges = pairStubs(rng, stubs, edges, nil)
	}
	edges = pairStubs(rng, external, edges, comm)

	// Merge duplicates, then make the graph unweighted again.
	merged := NewGraph(n, edges).Edges()
	for i := range merged {
		merged[i].W = 1
	}
	return NewGraph(n, merged), comm, nil
}

// pairStubs shuffles stubs and joins consecutive ones, skipping self-loops and, when comm is not
// nil, pairs inside one community.
func pairStubs(rng *rand.Rand, stubs []int, edges []Edge, comm []int) []Edge {
	rng.Shuffle(len(stubs), func(i, j int) { stubs[i], stubs[j] = stubs[j], stubs[i] })
	for i := 0; i+1 < len(stubs); i += 2 {
		u, v := stubs[i], stubs[i+1]
		if u == v || (comm != nil && comm[u] == comm[v]) {
			continue
		}
		edges = append(edges, Edge{U: u, V: v, W: 1})
	}
	return edges
}

// samplePowerLaw draws from the density proportional to x^-exp on [lo, hi] by inversion.
func samplePowerLaw(rng *rand.Rand, lo, hi, exp float64) float64 {
	a := 1 - exp
	l, h := math.Pow(lo, a), math.Pow(hi, a)
	return math.Pow(l+rng.Float64()*(h-l), 1/a)
}

// powerLawMean is the mean of the density proportional to x^-exp on [lo, hi].
func powerLawMean(lo, hi, exp float64) float64 {
	if exp == 2 {
		return math.Log(hi/lo) / (1/lo - 1/hi)
	}
	num := (math.Pow(hi, 2-exp) - math.Pow(lo, 2-exp)) / (2 - exp)
	den := (math.Pow(hi, 1-exp) - math.Pow(lo, 1-exp)) / (1 - exp)
	return num / den
}
