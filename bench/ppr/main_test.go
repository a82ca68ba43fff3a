package main

import (
	"math"
	"testing"

	"github.com/stratarag/strata/internal/graph"
)

// TestWeigh: the GDS groups of weighted seeds, summed with their weights, give every seed the
// weight its Go form has; equal seeds are one group of weight 1, each node once.
func TestWeigh(t *testing.T) {
	weighted := []graph.PPRSeed{{ID: "3", Weight: 1}, {ID: "7", Weight: 1.0 / 3}, {ID: "9", Weight: 0.1}, {ID: "3", Weight: 0.5}}
	goSeeds, groups := weigh(weighted, false)
	if len(goSeeds) != 3 {
		t.Fatalf("go seeds %v, want 3 (node 3 once)", goSeeds)
	}
	sum := map[int]float64{}
	for _, g := range groups {
		for _, id := range g["nodes"].([]any) {
			sum[int(id.(int64))] += g["weight"].(float64)
		}
	}
	var total float64
	for _, s := range goSeeds {
		total += s.Weight
		if math.Abs(sum[s.Node]-s.Weight) > 1e-12 {
			t.Errorf("node %d weighs %v over the groups, %v in Go", s.Node, sum[s.Node], s.Weight)
		}
	}
	if math.Abs(total-1) > 1e-12 {
		t.Errorf("go weights sum to %v, want 1", total)
	}

	goSeeds, groups = weigh([]graph.PPRSeed{{ID: "4", Weight: 1}, {ID: "2", Weight: 1}, {ID: "4", Weight: 1}}, true)
	if len(goSeeds) != 2 || len(groups) != 1 || len(groups[0]["nodes"].([]any)) != 2 || groups[0]["weight"] != 1.0 {
		t.Errorf("equal seeds: go %v, groups %v; want nodes 4 and 2 once, one group of weight 1", goSeeds, groups)
	}
}
