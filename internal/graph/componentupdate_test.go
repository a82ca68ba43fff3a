package graph

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"testing"
)

// componentFixture is an entity graph as PlanComponents' expander sees it.
type componentFixture struct {
	entities []string
	edges    [][2]string
}

// components numbers the weakly connected components of f (by union-find), each by the
// position of its smallest entity plus offset.
func (f componentFixture) components(offset int64) map[string]int64 {
	parent := map[string]string{}
	for _, e := range f.entities {
		parent[e] = e
	}
	var find func(string) string
	find = func(x string) string {
		if parent[x] != x {
			parent[x] = find(parent[x])
		}
		return parent[x]
	}
	for _, e := range f.edges {
		a, b := find(e[0]), find(e[1])
		if a > b {
			a, b = b, a
		}
		parent[b] = a
	}
	out := map[string]int64{}
	id := map[string]int64{}
	for _, e := range slices.Sorted(slices.Values(f.entities)) {
		r := find(e)
		if _, ok := id[r]; !ok {
			id[r] = offset + int64(len(id))
		}
		out[e] = id[r]
	}
	return out
}

func (f componentFixture) degrees() map[string]int {
	d := map[string]int{}
	for _, e := range f.edges {
		d[e[0]]++
		if e[1] != e[0] {
			d[e[1]]++
		}
	}
	return d
}

// chain is the edges of a path through ids.
func chain(ids ...string) [][2]string {
	var out [][2]string
	for i := 1; i < len(ids); i++ {
		out = append(out, [2]string{ids[i-1], ids[i]})
	}
	return out
}

func names(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%02d", prefix, i)
	}
	return out
}

func TestPlanComponents(t *testing.T) {
	big := names("b", 30)
	bigEdges := chain(big...)
	bigEdges = append(bigEdges, [2]string{big[0], big[29]}) // a ring: one removal splits nothing
	small := []string{"s1", "s2", "s3"}
	tests := []struct {
		name       string
		before     componentFixture
		after      componentFixture
		changed    []string // besides the ends of the edges added or removed
		maxVisited int      // 0: no bound
		keepsBigID bool     // the ring's component keeps its id
	}{
		{
			name:   "new entity joins the ring",
			before: componentFixture{slices.Concat(big, small), slices.Concat(bigEdges, chain(small...))},
			after: componentFixture{slices.Concat(big, small, []string{"n1"}),
				slices.Concat(bigEdges, chain(small...), chain("n1", big[3]))},
			changed: []string{"n1"}, maxVisited: 10, keepsBigID: true,
		},
		{
			name:   "an edge merges the small component into the ring",
			before: componentFixture{slices.Concat(big, small), slices.Concat(bigEdges, chain(small...))},
			after: componentFixture{slices.Concat(big, small),
				slices.Concat(bigEdges, chain(small...), chain("s2", big[10]))},
			maxVisited: 10, keepsBigID: true,
		},
		{
			name:       "a removal inside the ring splits nothing",
			before:     componentFixture{slices.Concat(big, small), slices.Concat(bigEdges, chain(small...))},
			after:      componentFixture{slices.Concat(big, small), slices.Concat(bigEdges[1:], chain(small...))},
			keepsBigID: true,
		},
		{
			name:   "two removals split a piece off the ring",
			before: componentFixture{slices.Concat(big, small), slices.Concat(bigEdges, chain(small...))},
			after: componentFixture{slices.Concat(big, small),
				slices.Concat(bigEdges[:3], bigEdges[6:], chain(small...))},
			keepsBigID: true,
		},
		{
			name:       "an entity removed from the middle of the small chain",
			before:     componentFixture{slices.Concat(big, small), slices.Concat(bigEdges, chain(small...))},
			after:      componentFixture{slices.Concat(big, []string{"s1", "s3"}), bigEdges},
			changed:    []string{"s2"},
			maxVisited: 3, keepsBigID: true,
		},
		{
			name:       "an edit that changes no relation",
			before:     componentFixture{slices.Concat(big, small), slices.Concat(bigEdges, chain(small...))},
			after:      componentFixture{slices.Concat(big, small), slices.Concat(bigEdges, chain(small...))},
			changed:    []string{"s1"},
			maxVisited: 3, keepsBigID: true,
		},
		{
			name:   "new isolated entity and a self-relation",
			before: componentFixture{slices.Concat(big, small), slices.Concat(bigEdges, chain(small...))},
			after: componentFixture{slices.Concat(big, small, []string{"n1", "n2"}),
				slices.Concat(bigEdges, chain(small...), [][2]string{{"n2", "n2"}})},
			changed: []string{"n1", "n2"}, maxVisited: 2, keepsBigID: true,
		},
		{
			name:       "edits in two large components stop at once",
			before:     componentFixture{slices.Concat(big, names("r", 30)), slices.Concat(bigEdges, chain(names("r", 30)...))},
			after:      componentFixture{slices.Concat(big, names("r", 30)), slices.Concat(bigEdges, chain(names("r", 30)...))},
			changed:    []string{big[5], "r07"},
			maxVisited: 2, keepsBigID: true,
		},
		{
			name:   "a chain cut in two halves",
			before: componentFixture{big, chain(big...)},
			after:  componentFixture{big, slices.Concat(chain(big[:15]...), chain(big[15:]...))},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stored := tt.before.components(100) // ids need not start at 0
			deg := tt.before.degrees()
			// Seeds: the changed entities, the ends of edges added or removed.
			key := func(e [2]string) string { return e[0] + "|" + e[1] }
			had, has := map[string]bool{}, map[string]bool{}
			for _, e := range tt.before.edges {
				had[key(e)] = true
			}
			for _, e := range tt.after.edges {
				has[key(e)] = true
			}
			seeds := slices.Clone(tt.changed)
			for _, e := range slices.Concat(tt.before.edges, tt.after.edges) {
				if had[key(e)] != has[key(e)] {
					seeds = append(seeds, e[0], e[1])
				}
			}
			adj := map[string][]string{}
			for _, e := range tt.after.edges {
				adj[e[0]] = append(adj[e[0]], e[1])
				if e[1] != e[0] {
					adj[e[1]] = append(adj[e[1]], e[0])
				}
			}
			now := tt.after.degrees()
			exists := map[string]bool{}
			for _, e := range tt.after.entities {
				exists[e] = true
			}
			expand := func(_ context.Context, ids []string) (map[string]ComponentNode, error) {
				out := map[string]ComponentNode{}
				for _, id := range ids {
					if !exists[id] {
						continue
					}
					c, ok := stored[id]
					if !ok {
						c = -1
					}
					out[id] = ComponentNode{Component: c, Degree: deg[id], Neighbours: adj[id], Related: now[id]}
				}
				return out, nil
			}
			plan, err := PlanComponents(context.Background(), seeds, 1000, expand)
			if err != nil {
				t.Fatal(err)
			}
			if tt.maxVisited > 0 && plan.Visited > tt.maxVisited {
				t.Errorf("visited %d entities, want at most %d", plan.Visited, tt.maxVisited)
			}
			// Apply the plan as a backend does.
			got := map[string]int64{}
			gotDeg := map[string]int{}
			for _, e := range tt.after.entities {
				c, ok := stored[e]
				if !ok {
					c = -1
				}
				for _, r := range plan.Relabel {
					if slices.Contains(r.From, c) {
						c = r.Keep
					}
				}
				got[e], gotDeg[e] = c, deg[e]
			}
			for _, w := range plan.Writes {
				got[w.ID], gotDeg[w.ID] = w.Component, w.Degree
			}
			want := tt.after.components(0)
			// Same partition: ids correspond one to one.
			fwd, back := map[int64]int64{}, map[int64]int64{}
			for _, e := range tt.after.entities {
				g, w := got[e], want[e]
				if g < 0 {
					t.Errorf("%s has no component", e)
				}
				if x, ok := fwd[g]; ok && x != w {
					t.Errorf("component %d holds entities of two components (%s)", g, e)
				}
				if x, ok := back[w]; ok && x != g {
					t.Errorf("component of %s split over ids %d and %d", e, x, g)
				}
				fwd[g], back[w] = w, g
			}
			if !maps.Equal(gotDeg, now) {
				for _, e := range tt.after.entities {
					if gotDeg[e] != now[e] {
						t.Errorf("degree of %s = %d, want %d", e, gotDeg[e], now[e])
					}
				}
			}
			if tt.keepsBigID && got[big[20]] != stored[big[20]] {
				t.Errorf("the ring's component is %d, was %d: want it kept", got[big[20]], stored[big[20]])
			}
			// Untouched components keep their ids.
			for _, e := range tt.after.entities {
				if c, ok := stored[e]; ok && !slices.Contains(seeds, e) {
					touched := false
					for _, s := range seeds {
						if sc, ok := stored[s]; ok && sc == c {
							touched = true
						}
					}
					if !touched && got[e] != c {
						t.Errorf("%s: untouched component %d renamed %d", e, c, got[e])
					}
				}
			}
		})
	}
}
