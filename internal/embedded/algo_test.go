package embedded

import (
	"testing"

	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/graph/storetest"
)

// TestCommunityLevels checks that the embedded Leiden keeps intermediate levels: a ring of
// cliques has at least two (cliques, then groups of neighbouring cliques). The contract suite
// checks the hierarchy's consistency but not its depth, which is the algorithm's business.
func TestCommunityLevels(t *testing.T) {
	s := openTemp(t)
	if err := s.Apply(t.Context(), storetest.RingOfCliques(16, 4)); err != nil {
		t.Fatal(err)
	}
	comms, err := s.ComputeCommunities(t.Context(), graph.DefaultLeidenParams())
	if err != nil {
		t.Fatal(err)
	}
	levels := comms[len(comms)-1].Level + 1
	if levels < 2 {
		t.Errorf("ring of 16 cliques: %d level(s), want at least 2", levels)
	}
	perLevel := map[int]int{}
	for _, c := range comms {
		perLevel[c.Level]++
	}
	if perLevel[levels-1] != 16 {
		t.Errorf("finest level has %d communities, want the 16 cliques", perLevel[levels-1])
	}
}

// TestGraphCacheFollowsWrites checks that the cached entity graph is reloaded after writes, of
// this process and of another store handle (as another process would be).
func TestGraphCacheFollowsWrites(t *testing.T) {
	dir := t.TempDir()
	w, err := Open(t.Context(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	r, err := Open(t.Context(), dir, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()

	entities := []graph.Entity{{ID: "A", Name: "A"}, {ID: "B", Name: "B"}, {ID: "C", Name: "C"}}
	if err := w.Apply(t.Context(), graph.Batch{Entities: entities, Relations: []graph.Relation{{Source: "A", Target: "B", Weight: 1}}}); err != nil {
		t.Fatal(err)
	}
	req := []graph.PathRequest{{Source: "A", Target: "C"}}
	for _, s := range []*Store{w, r} {
		if paths, err := s.ShortestPaths(t.Context(), req, 5); err != nil || len(paths) != 0 {
			t.Fatalf("ShortestPaths(A, C) before the edge exists = %v, %v", paths, err)
		}
	}
	if err := w.Apply(t.Context(), graph.Batch{SummaryLinks: []graph.SummaryLink{{Member: "B", Summary: "C", Weight: 1}}}); err != nil {
		t.Fatal(err)
	}
	for name, s := range map[string]*Store{"writer": w, "reader": r} {
		paths, err := s.ShortestPaths(t.Context(), req, 5)
		if err != nil || len(paths) != 1 || len(paths[0].Steps) != 2 {
			t.Errorf("%s: ShortestPaths(A, C) after adding B->C = %+v, %v; want A-B-C", name, paths, err)
		}
	}
}
