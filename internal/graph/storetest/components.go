package storetest

import (
	"fmt"
	"testing"

	"github.com/stratarag/strata/internal/graph"
)

func componentTests() []test {
	return []test{
		{"ComputeComponents", testComponents},
		{"UpdateComponents", testUpdateComponents},
	}
}

// testComponents: WCC over the RELATED relationships of all layers, SUMMARIZED_BY left out;
// component ids are equal within a component and differ across; degree counts RELATED only.
//
//	A - B - C      D ==> S (summary) - T (summary)      E      F -0- G (weight 0 still connects)
func testComponents(t *testing.T, s graph.Store) {
	var b graph.Batch
	for _, id := range []string{"A", "B", "C", "D", "E", "F", "G"} {
		b.Entities = append(b.Entities, graph.Entity{ID: id, Name: id, Type: "thing", Description: "entity " + id})
	}
	b.Entities = append(b.Entities,
		graph.Entity{ID: "S", Name: "S", Type: "thing", Description: "summary S", Layer: 1},
		graph.Entity{ID: "T", Name: "T", Type: "thing", Description: "summary T", Layer: 1})
	b.Relations = []graph.Relation{
		{Source: "A", Target: "B", Weight: 1}, {Source: "B", Target: "C", Weight: 1}, {Source: "F", Target: "G", Weight: 0},
		{Source: "S", Target: "T", Weight: 1},
	}
	b.SummaryLinks = []graph.SummaryLink{{Member: "D", Summary: "S", Weight: 1}}
	apply(t, s, b)

	groups := [][]string{{"A", "B", "C"}, {"D"}, {"S", "T"}, {"E"}, {"F", "G"}}
	degree := map[string]int{"A": 1, "B": 2, "C": 1, "D": 0, "S": 1, "T": 1, "E": 0, "F": 1, "G": 1}
	for run := 1; run <= 2; run++ { // a re-run gives the same answer
		n, err := s.ComputeComponents(ctx(t))
		if err != nil {
			t.Fatalf("ComputeComponents: %v", err)
		}
		if n != len(groups) {
			t.Errorf("run %d: ComputeComponents = %d components, want %d", run, n, len(groups))
		}
		checkComponents(t, s, fmt.Sprintf("run %d", run), groups, degree)
	}
}

// testUpdateComponents: after ComputeComponents, a change is applied and UpdateComponents is
// told what it touched; the components and degrees must be those of the graph now, and a
// component the change did not touch keeps its id.
//
//	before: A - B - C - D    E    F - G    H - I (untouched)
//	after:  A - B    C - N - E    G    H - I      (B-C and F removed, N new, related to C and E)
func testUpdateComponents(t *testing.T, s graph.Store) {
	var b graph.Batch
	for _, id := range []string{"A", "B", "C", "D", "E", "F", "G", "H", "I"} {
		b.Entities = append(b.Entities, graph.Entity{ID: id, Name: id, Type: "thing", Description: "entity " + id})
	}
	b.Relations = []graph.Relation{
		{Source: "A", Target: "B", Weight: 1}, {Source: "B", Target: "C", Weight: 1}, {Source: "C", Target: "D", Weight: 1},
		{Source: "F", Target: "G", Weight: 1}, {Source: "H", Target: "I", Weight: 1},
	}
	apply(t, s, b)
	if _, err := s.ComputeComponents(ctx(t)); err != nil {
		t.Fatalf("ComputeComponents: %v", err)
	}
	untouched := must[[]graph.Entity](t, "Entities")(s.Entities(ctx(t), []string{"H"}))[0].ComponentID

	apply(t, s, graph.Batch{
		Entities:        []graph.Entity{{ID: "N", Name: "N", Type: "thing", Description: "entity N"}},
		Relations:       []graph.Relation{{Source: "C", Target: "N", Weight: 1}, {Source: "E", Target: "N", Weight: 1}},
		DeleteRelations: []graph.RelationKey{graph.NewRelationKey("B", "C")},
		DeleteEntities:  []string{"F"},
	})
	// The changed entities and the ends of the relations added or removed (F's with it).
	changed := []string{"N", "F", "B", "C", "E", "G"}
	groups := [][]string{{"A", "B"}, {"C", "D", "E", "N"}, {"G"}, {"H", "I"}}
	degree := map[string]int{"A": 1, "B": 1, "C": 2, "D": 1, "E": 1, "N": 2, "G": 0, "H": 1, "I": 1}
	n, err := s.UpdateComponents(ctx(t), changed)
	if err != nil {
		t.Fatalf("UpdateComponents: %v", err)
	}
	if n != len(groups) {
		t.Errorf("UpdateComponents = %d components, want %d", n, len(groups))
	}
	checkComponents(t, s, "after UpdateComponents", groups, degree)
	if got := must[[]graph.Entity](t, "Entities")(s.Entities(ctx(t), []string{"H"}))[0].ComponentID; got != untouched {
		t.Errorf("untouched component of H renamed from %d to %d", untouched, got)
	}
	// Nothing changed since: nothing to do, the same answer.
	if n, err := s.UpdateComponents(ctx(t), nil); err != nil || n != len(groups) {
		t.Errorf("UpdateComponents again = %d, %v; want %d", n, err, len(groups))
	}
}

// checkComponents checks that the entities of each group share one component id, not negative,
// that no two groups share one, and that every entity has its degree.
func checkComponents(t *testing.T, s graph.Store, when string, groups [][]string, degree map[string]int) {
	t.Helper()
	seen := map[int64]string{}
	for _, g := range groups {
		es := must[[]graph.Entity](t, "Entities")(s.Entities(ctx(t), g))
		if len(es) != len(g) {
			t.Fatalf("Entities(%v) = %v", g, es)
		}
		for _, e := range es {
			if e.ComponentID != es[0].ComponentID || e.ComponentID < 0 {
				t.Errorf("%s: %s is in component %d, %s in %d; want the same, not negative", when, e.ID, e.ComponentID, es[0].ID, es[0].ComponentID)
			}
			if e.Degree != degree[e.ID] {
				t.Errorf("%s: degree of %s = %d, want %d", when, e.ID, e.Degree, degree[e.ID])
			}
		}
		if other, dup := seen[es[0].ComponentID]; dup {
			t.Errorf("%s: %s and %s are in different components but share id %d", when, other, es[0].ID, es[0].ComponentID)
		}
		seen[es[0].ComponentID] = es[0].ID
	}
}
