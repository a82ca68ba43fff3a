package storetest

import (
	"errors"
	"math"
	"testing"

	"github.com/stratarag/strata/internal/graph"
)

func paramTests() []test {
	return []test{
		{"Params/LeidenRefused", testLeidenParamsRefused},
		{"Params/ArchRefused", testArchParamsRefused},
		{"Params/ZeroTolerance", testZeroTolerance},
	}
}

// badLeidenParams are parameters no backend may run Leiden with (graph.LeidenParams.Validate),
// each the defaults with one field changed.
func badLeidenParams() map[string]graph.LeidenParams {
	with := func(change func(*graph.LeidenParams)) graph.LeidenParams {
		p := graph.DefaultLeidenParams()
		change(&p)
		return p
	}
	return map[string]graph.LeidenParams{
		"zero gamma":          with(func(p *graph.LeidenParams) { p.Gamma = 0 }),
		"negative gamma":      with(func(p *graph.LeidenParams) { p.Gamma = -1 }),
		"NaN gamma":           with(func(p *graph.LeidenParams) { p.Gamma = math.NaN() }),
		"infinite gamma":      with(func(p *graph.LeidenParams) { p.Gamma = math.Inf(1) }),
		"zero theta":          with(func(p *graph.LeidenParams) { p.Theta = 0 }),
		"negative theta":      with(func(p *graph.LeidenParams) { p.Theta = -0.01 }),
		"negative tolerance":  with(func(p *graph.LeidenParams) { p.Tolerance = -1e-4 }),
		"NaN tolerance":       with(func(p *graph.LeidenParams) { p.Tolerance = math.NaN() }),
		"zero max levels":     with(func(p *graph.LeidenParams) { p.MaxLevels = 0 }),
		"negative max levels": with(func(p *graph.LeidenParams) { p.MaxLevels = -3 }),
	}
}

// testLeidenParamsRefused: ComputeCommunities and UpdateCommunities refuse bad parameters with
// graph.ErrInvalidParams, whatever the backend would otherwise make of them, and leave the
// stored communities as they were.
func testLeidenParamsRefused(t *testing.T, s graph.Store) {
	apply(t, s, clusterBatch())
	first := computeCommunities(t, s)
	before := stats(t, s)
	for name, p := range badLeidenParams() {
		if _, err := s.ComputeCommunities(ctx(t), p); !errors.Is(err, graph.ErrInvalidParams) {
			t.Errorf("ComputeCommunities with %s: error %v, want graph.ErrInvalidParams", name, err)
		}
		if _, err := s.UpdateCommunities(ctx(t), p, []string{"P1"}); !errors.Is(err, graph.ErrInvalidParams) {
			t.Errorf("UpdateCommunities with %s: error %v, want graph.ErrInvalidParams", name, err)
		}
	}
	check(t, "Stats after the refused runs", stats(t, s), before)
	ids := make([]string, len(first))
	for i, c := range first {
		ids[i] = c.ID
	}
	got := must[[]graph.Community](t, "Communities")(s.Communities(ctx(t), ids))
	check(t, "communities after the refused runs", got, first)
}

// testArchParamsRefused: ArchPartition refuses bad neighbour and Leiden parameters alike.
func testArchParamsRefused(t *testing.T, s graph.Store) {
	apply(t, s, archBatch())
	bad := map[string]graph.ArchParams{}
	for name, p := range badLeidenParams() {
		a := archParams()
		a.Leiden = p
		bad[name] = a
	}
	for name, change := range map[string]func(*graph.ArchParams){
		"no neighbours":   func(p *graph.ArchParams) { p.K = 0 },
		"negative cutoff": func(p *graph.ArchParams) { p.Cutoff = -0.1 },
		"cutoff above 1":  func(p *graph.ArchParams) { p.Cutoff = 1.5 },
		"NaN cutoff":      func(p *graph.ArchParams) { p.Cutoff = math.NaN() },
	} {
		a := archParams()
		change(&a)
		bad[name] = a
	}
	for name, p := range bad {
		if _, err := s.ArchPartition(ctx(t), 0, p); !errors.Is(err, graph.ErrInvalidParams) {
			t.Errorf("ArchPartition with %s: error %v, want graph.ErrInvalidParams", name, err)
		}
	}
}

// testZeroTolerance: a tolerance of 0 is valid (levels are added while modularity grows at
// all), not a request for a default, on both backends.
func testZeroTolerance(t *testing.T, s graph.Store) {
	apply(t, s, clusterBatch())
	p := graph.DefaultLeidenParams()
	p.Tolerance = 0
	comms := must[[]graph.Community](t, "ComputeCommunities")(s.ComputeCommunities(ctx(t), p))
	if len(comms) == 0 {
		t.Fatal("ComputeCommunities with tolerance 0 returned no communities")
	}
	must[graph.CommunityUpdate](t, "UpdateCommunities")(s.UpdateCommunities(ctx(t), p, []string{"P1"}))
}
