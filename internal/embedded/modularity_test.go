package embedded

import (
	"math"
	"testing"

	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/graph/storetest"
)

// TestCommunityModularityMatchesLeiden: right after ComputeCommunities, the modularity of the
// stored levels is what Leiden reported for them and the stage recorded, level by level; a store
// without communities has no level.
func TestCommunityModularityMatchesLeiden(t *testing.T) {
	s := openTemp(t)
	ctx := t.Context()
	if err := s.Apply(ctx, storetest.RingOfCliques(16, 4)); err != nil {
		t.Fatal(err)
	}
	if q, err := s.CommunityModularity(ctx, 1, false); err != nil || len(q) != 0 {
		t.Fatalf("before any communities: %v, %v; want no level", q, err)
	}
	p := graph.DefaultLeidenParams()
	if _, err := s.ComputeCommunities(ctx, p); err != nil {
		t.Fatal(err)
	}
	recorded, ok, err := s.Meta(ctx, graph.CommunityModularityKey)
	if err != nil || !ok {
		t.Fatalf("meta %s = %q, %v, %v", graph.CommunityModularityKey, recorded, ok, err)
	}
	want := graph.ParseModularity(recorded)
	got, err := s.CommunityModularity(ctx, p.Gamma, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(want) < 2 || len(got) != len(want) {
		t.Fatalf("modularity per level %v, recorded %v; want the same levels, 2 or more", got, want)
	}
	for l := range want {
		if math.Abs(got[l]-want[l]) > 1e-6 || got[l] <= 0 {
			t.Errorf("level %d: modularity %v, Leiden recorded %v", l, got[l], want[l])
		}
	}
}
