package embedded

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stratarag/strata/internal/graph"
)

// TestUpdateComponentsMatchesCompute applies random changes (relations added and removed,
// entities added and deleted) to a sparse graph, so that components merge and split, and after
// each checks that UpdateComponents, told what changed, leaves the partition and degrees that
// ComputeComponents computes from scratch.
func TestUpdateComponentsMatchesCompute(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 7))
			s := openTemp(t)
			ctx := t.Context()
			next := 0
			var alive []string
			newEntity := func() graph.Entity {
				id := fmt.Sprintf("e%03d", next)
				next++
				alive = append(alive, id)
				return graph.Entity{ID: id, Name: id, Type: "thing", Description: "entity " + id}
			}
			var b graph.Batch
			for range 60 {
				b.Entities = append(b.Entities, newEntity())
			}
			edges := map[graph.RelationKey]bool{}
			for range 50 {
				k := graph.NewRelationKey(alive[rng.IntN(len(alive))], alive[rng.IntN(len(alive))])
				if !edges[k] {
					edges[k] = true
					b.Relations = append(b.Relations, graph.Relation{Source: k.Source, Target: k.Target, Weight: 1})
				}
			}
			if err := s.Apply(ctx, b); err != nil {
				t.Fatal(err)
			}
			if _, err := s.ComputeComponents(ctx); err != nil {
				t.Fatal(err)
			}
			for round := range 15 {
				var b graph.Batch
				var changed []string
				for range 1 + rng.IntN(3) {
					e := newEntity()
					b.Entities = append(b.Entities, e)
					changed = append(changed, e.ID)
				}
				for range 1 + rng.IntN(4) {
					k := graph.NewRelationKey(alive[rng.IntN(len(alive))], alive[rng.IntN(len(alive))])
					if !edges[k] {
						edges[k] = true
						b.Relations = append(b.Relations, graph.Relation{Source: k.Source, Target: k.Target, Weight: 1})
						changed = append(changed, k.Source, k.Target)
					}
				}
				keys := slices.SortedFunc(func(yield func(graph.RelationKey) bool) {
					for k := range edges {
						if !yield(k) {
							return
						}
					}
				}, func(a, b graph.RelationKey) int { return cmpKey(a, b) })
				for range rng.IntN(4) {
					k := keys[rng.IntN(len(keys))]
					if edges[k] && !slices.ContainsFunc(b.Relations, func(r graph.Relation) bool { return r.Source == k.Source && r.Target == k.Target }) {
						delete(edges, k)
						b.DeleteRelations = append(b.DeleteRelations, k)
						changed = append(changed, k.Source, k.Target)
					}
				}
				if rng.IntN(2) == 0 {
					// An old entity goes with its relations; their ends are changed too.
					i := rng.IntN(len(alive) - len(b.Entities))
					id := alive[i]
					alive = slices.Delete(alive, i, i+1)
					b.DeleteEntities = append(b.DeleteEntities, id)
					b.Relations = slices.DeleteFunc(b.Relations, func(r graph.Relation) bool { return r.Source == id || r.Target == id })
					changed = append(changed, id)
					for k := range edges {
						if k.Source == id || k.Target == id {
							delete(edges, k)
							changed = append(changed, k.Source, k.Target)
						}
					}
				}
				if err := s.Apply(ctx, b); err != nil {
					t.Fatal(err)
				}
				n, err := s.UpdateComponents(ctx, changed)
				if err != nil {
					t.Fatal(err)
				}
				got, err := s.Entities(ctx, alive)
				if err != nil {
					t.Fatal(err)
				}
				m, err := s.ComputeComponents(ctx)
				if err != nil {
					t.Fatal(err)
				}
				want, err := s.Entities(ctx, alive)
				if err != nil {
					t.Fatal(err)
				}
				if n != m {
					t.Errorf("round %d: UpdateComponents = %d components, ComputeComponents %d", round, n, m)
				}
				fwd, back := map[int64]int64{}, map[int64]int64{}
				for i, e := range got {
					w := want[i]
					if e.Degree != w.Degree {
						t.Errorf("round %d: degree of %s = %d, want %d", round, e.ID, e.Degree, w.Degree)
					}
					if x, ok := fwd[e.ComponentID]; ok && x != w.ComponentID {
						t.Errorf("round %d: component %d of %s joins two components", round, e.ComponentID, e.ID)
					}
					if x, ok := back[w.ComponentID]; ok && x != e.ComponentID {
						t.Errorf("round %d: component of %s split over %d and %d", round, e.ID, x, e.ComponentID)
					}
					fwd[e.ComponentID], back[w.ComponentID] = w.ComponentID, e.ComponentID
				}
			}
		})
	}
}

func cmpKey(a, b graph.RelationKey) int {
	return cmp.Or(strings.Compare(a.Source, b.Source), strings.Compare(a.Target, b.Target))
}
