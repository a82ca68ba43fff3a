package storetest

import (
	"testing"

	"github.com/stratarag/strata/internal/graph"
)

func pathTests() []test {
	return []test{
		{"ShortestPaths", testShortestPaths},
	}
}

// pathBatch is a tree, so every shortest path is unique:
//
//	A -1- B -2- C -3- D ==0.5==> S <==0.25== G      F (isolated)
//
// where -w- is RELATED with weight w and ==w==> is SUMMARIZED_BY (member to summary).
func pathBatch() graph.Batch {
	var b graph.Batch
	for _, id := range []string{"A", "B", "C", "D", "F", "G"} {
		b.Entities = append(b.Entities, graph.Entity{ID: id, Name: id, Type: "thing", Description: "entity " + id})
	}
	b.Entities = append(b.Entities, graph.Entity{ID: "S", Name: "S", Type: "thing", Description: "summary S", Layer: 1})
	b.Relations = []graph.Relation{
		{Source: "A", Target: "B", Description: "A knows B", Weight: 1},
		{Source: "B", Target: "C", Description: "B knows C", Weight: 2},
		{Source: "C", Target: "D", Description: "C knows D", Weight: 3},
	}
	b.SummaryLinks = []graph.SummaryLink{
		{Member: "D", Summary: "S", Description: "D is part of S", Weight: 0.5},
		{Member: "G", Summary: "S", Description: "G is part of S", Weight: 0.25},
	}
	return b
}

// testShortestPaths: paths over RELATED and SUMMARIZED_BY in either direction, with steps
// oriented in walking direction; hop limits, unreachable and unknown entities leave requests out;
// an entity reaches itself in zero steps (so with maxHops 0 too); maxHops < 0 finds nothing.
func testShortestPaths(t *testing.T, s graph.Store) {
	apply(t, s, pathBatch())
	rel := func(from, to, desc string, w float64) graph.PathStep {
		return graph.PathStep{From: from, To: to, Type: "RELATED", Description: desc, Weight: w}
	}
	sum := func(from, to, desc string, w float64) graph.PathStep {
		return graph.PathStep{From: from, To: to, Type: "SUMMARIZED_BY", Description: desc, Weight: w}
	}
	aToD := graph.Path{Source: "A", Target: "D", Nodes: []string{"A", "B", "C", "D"}, Steps: []graph.PathStep{
		rel("A", "B", "A knows B", 1), rel("B", "C", "B knows C", 2), rel("C", "D", "C knows D", 3),
	}}
	dToA := graph.Path{Source: "D", Target: "A", Nodes: []string{"D", "C", "B", "A"}, Steps: []graph.PathStep{
		rel("D", "C", "C knows D", 3), rel("C", "B", "B knows C", 2), rel("B", "A", "A knows B", 1),
	}}
	aToS := graph.Path{Source: "A", Target: "S", Nodes: []string{"A", "B", "C", "D", "S"}, Steps: append(
		append([]graph.PathStep(nil), aToD.Steps...), sum("D", "S", "D is part of S", 0.5))}
	sToG := graph.Path{Source: "S", Target: "G", Nodes: []string{"S", "G"}, Steps: []graph.PathStep{
		sum("S", "G", "G is part of S", 0.25),
	}}
	cToG := graph.Path{Source: "C", Target: "G", Nodes: []string{"C", "D", "S", "G"}, Steps: []graph.PathStep{
		rel("C", "D", "C knows D", 3), sum("D", "S", "D is part of S", 0.5), sum("S", "G", "G is part of S", 0.25),
	}}
	reqs := []graph.PathRequest{
		{Source: "A", Target: "D"}, {Source: "D", Target: "A"}, {Source: "A", Target: "S"},
		{Source: "S", Target: "G"}, {Source: "C", Target: "G"},
		{Source: "F", Target: "F"},
		{Source: "A", Target: "F"}, {Source: "A", Target: "MISSING"}, {Source: "MISSING", Target: "A"},
		{Source: "MISSING", Target: "MISSING"},
	}
	fToF := graph.Path{Source: "F", Target: "F", Nodes: []string{"F"}}
	for _, tc := range []struct {
		maxHops int
		want    []graph.Path
	}{
		{-1, nil},
		{0, []graph.Path{fToF}},
		{1, []graph.Path{sToG, fToF}},
		{3, []graph.Path{aToD, dToA, sToG, cToG, fToF}},
		{4, []graph.Path{aToD, dToA, aToS, sToG, cToG, fToF}},
		{10, []graph.Path{aToD, dToA, aToS, sToG, cToG, fToF}},
	} {
		got, err := s.ShortestPaths(ctx(t), reqs, tc.maxHops)
		if err != nil {
			t.Fatalf("ShortestPaths(maxHops=%d): %v", tc.maxHops, err)
		}
		if len(got) != len(tc.want) {
			t.Errorf("ShortestPaths(maxHops=%d) returned %d paths, want %d: %+v", tc.maxHops, len(got), len(tc.want), got)
		}
		check(t, "ShortestPaths with maxHops "+itoa(tc.maxHops), byEnds(got), byEnds(tc.want))
	}
	if got := must[[]graph.Path](t, "ShortestPaths")(s.ShortestPaths(ctx(t), nil, 3)); len(got) != 0 {
		t.Errorf("ShortestPaths(nil) = %v, want none", got)
	}
}

// byEnds indexes paths by their ends; the contract does not order the result.
func byEnds(ps []graph.Path) map[graph.PathRequest]graph.Path {
	m := make(map[graph.PathRequest]graph.Path, len(ps))
	for _, p := range ps {
		m[graph.PathRequest{Source: p.Source, Target: p.Target}] = p
	}
	return m
}
