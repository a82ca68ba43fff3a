package reports

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stratarag/strata/internal/embedded"
	"github.com/stratarag/strata/internal/embedding"
	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/topk"
)

// membersOnly hides a store's CommunityDigests, so that Reports reads each community's members.
type membersOnly struct{ graph.ReadWriter }

// TestDigestsMatchMembers checks that the embedded store's digests say what CommunityMembers
// says (counts, weights bit for bit, the heaviest relations, the most connected members) and
// that the reports built from them are the reports built from the members.
func TestDigestsMatchMembers(t *testing.T) {
	ctx := context.Background()
	store, err := embedded.Open(ctx, t.TempDir(), embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	rng := rand.New(rand.NewPCG(7, 9))
	var b graph.Batch
	const n = 400
	for i := range n {
		id := fmt.Sprintf("E%03d", i)
		b.Entities = append(b.Entities, graph.Entity{ID: id, Name: "Name " + id, Type: "other",
			Description: fmt.Sprintf("%s is number %d. More.", id, i), ComponentID: -1})
	}
	weights := []float64{1, 2, 0.1, 0.7, 1.3}
	seen := map[graph.RelationKey]bool{}
	for range 3 * n {
		a, c := rng.IntN(n), rng.IntN(n)
		if rng.IntN(3) > 0 { // mostly near each other, so that communities form
			c = (a + 1 + rng.IntN(8)) % n
		}
		k := graph.NewRelationKey(fmt.Sprintf("E%03d", a), fmt.Sprintf("E%03d", c))
		if a == c || seen[k] {
			continue
		}
		seen[k] = true
		b.Relations = append(b.Relations, graph.Relation{Source: k.Source, Target: k.Target,
			Weight: weights[rng.IntN(len(weights))], Description: k.Source + " meets " + k.Target + ". Often."})
	}
	if err := store.Apply(ctx, b); err != nil {
		t.Fatal(err)
	}
	if _, err := store.ComputeComponents(ctx); err != nil {
		t.Fatal(err)
	}
	communities, err := store.ComputeCommunities(ctx, graph.DefaultLeidenParams())
	if err != nil {
		t.Fatal(err)
	}
	if len(communities) < 10 {
		t.Fatalf("%d communities", len(communities))
	}
	ids := make([]string, len(communities))
	for i, c := range communities {
		ids[i] = c.ID
	}
	ids = append(ids, "no-such-community", ids[0]) // unknown and repeated ids
	moreConnected := func(a, b graph.Entity) int { return cmp.Or(cmp.Compare(b.Degree, a.Degree), cmp.Compare(a.ID, b.ID)) }
	calls := 0
	err = store.CommunityDigests(ctx, ids, 4, 5, func(i int, d graph.CommunityDigest) error {
		if i != calls {
			t.Fatalf("digest %d called as %d", calls, i)
		}
		calls++
		m, err := store.CommunityMembers(ctx, ids[i], 5)
		if err != nil {
			return err
		}
		if d.EntityCount != len(m.Entities) || d.RelationCount != m.RelationCount || d.RelationWeight != m.RelationWeight {
			t.Errorf("%s: digest counts %d, %d, %v; members %d, %d, %v", ids[i], d.EntityCount, d.RelationCount, d.RelationWeight,
				len(m.Entities), m.RelationCount, m.RelationWeight)
		}
		if !slices.EqualFunc(d.Relations, m.Relations, func(a, b graph.Relation) bool {
			return a.Source == b.Source && a.Target == b.Target && a.Weight == b.Weight && a.Description == b.Description && slices.Equal(a.ChunkIDs, b.ChunkIDs)
		}) {
			t.Errorf("%s: relations %+v, want %+v", ids[i], d.Relations, m.Relations)
		}
		top := topk.Of(m.Entities, 4, moreConnected)
		if len(d.Entities) < len(top) || !slices.EqualFunc(d.Entities[:len(top)], top, func(a, b graph.Entity) bool {
			return a.ID == b.ID && a.Name == b.Name && a.Description == b.Description && a.Degree == b.Degree
		}) {
			t.Errorf("%s: entities %+v, want first %+v", ids[i], d.Entities, top)
		}
		if got, want := buildFrom(d.Entities, d.EntityCount, d.Relations, d.RelationCount, d.RelationWeight), buildReport(m); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: report %+v, want %+v", ids[i], got, want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if calls != len(ids) {
		t.Fatalf("%d digests for %d ids", calls, len(ids))
	}

	// The stage writes the same reports either way.
	x := &Extractive{Embedder: embedding.NewOffline(16), Batch: 7}
	stored := func() []graph.Community {
		all, err := store.CommunitiesByLevel(ctx, -1)
		if err != nil {
			t.Fatal(err)
		}
		return all
	}
	if err := x.Reports(ctx, membersOnly{store}, communities); err != nil {
		t.Fatal(err)
	}
	want := stored()
	if err := x.Reports(ctx, store, communities); err != nil {
		t.Fatal(err)
	}
	if got := stored(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("reports from digests differ from reports from members")
	}
	if want[0].Report == "" {
		t.Errorf("no report written: %+v", want[0])
	}
}
