package graph

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
)

// ComponentNode is what a backend reads of one entity for PlanComponents: its stored
// Entity.ComponentID (-1 when it has none yet) and Degree, and the entities its RELATED
// relationships reach (either direction; an entity related to itself lists itself).
type ComponentNode struct {
	Component  int64
	Degree     int // stored
	Neighbours []string
	Related    int // RELATED relationships now, a self-relation counting once
}

// ComponentExpander reads the ComponentNode of each of ids that is an entity (ids that are not
// are left out of the map).
type ComponentExpander func(ctx context.Context, ids []string) (map[string]ComponentNode, error)

// ComponentWrite sets an entity's component and degree.
type ComponentWrite struct {
	ID        string
	Component int64
	Degree    int
}

// ComponentRelabel gives every entity whose stored component is in From the component Keep.
type ComponentRelabel struct {
	Keep int64
	From []int64 // ascending; disjoint from every other relabel's
}

// ComponentPlan is how UpdateComponents brings the stored components up to date: first each
// Relabel (one bulk statement each: the part of a touched component its search did not need to
// visit), then Writes, in order.
type ComponentPlan struct {
	Relabel []ComponentRelabel
	Writes  []ComponentWrite // ordered by id
	// Visited is the number of entities read (expanded); Searches the number of
	// breadth-first searches started.
	Visited, Searches int
	// Touched is the number of stored components the change touched, Components the number
	// of components they make now: the count of components moves by Components - Touched.
	Touched, Components int
}

// PlanComponents finds what a change did to the weakly connected components of the RELATED
// graph by reading only around it, so that an update costs what the change touched rather than
// a pass over every relation. seeds are the changed entities: those added, rewritten or
// removed and both ends of every RELATED relation added or removed (removed entities are not
// read, as they are gone), which includes every entity without a component; nextID is an
// unused component id, above every stored one.
//
// Why the seeds are enough: an edge that was added joins two seeds; and every entity of a
// component that a change touched is still joined to a seed, since walking its old path towards
// the change stops, at the latest, at an end of the first removed relation (a removed entity's
// relations are removed with it, so their ends are seeds too). So a breadth-first search from
// each seed, the searches that meet merged, covers every entity whose component may have
// changed. A search that runs out of entities to visit has found a whole component (a piece a
// removal split off, or a small component that was merely edited). Once at most one search is
// still running, every entity of the touched components that no finished search holds belongs
// to it: it need not be visited, and is renamed in bulk by its stored component id. The
// searches advance a level at a time, the smallest first, so that a split costs the smaller of
// its pieces, and a merge or an edit inside the large component a few levels.
//
// Ids: the running search keeps the stored id most of its visited entities had (it holds the
// bulk of the largest touched component); a finished one keeps the stored id most of its
// entities had when no other took it, or gets a new one from nextID. Untouched components keep
// their ids, so ids are no longer dense after an update (ComputeComponents numbers them again).
func PlanComponents(ctx context.Context, seeds []string, nextID int64, expand ComponentExpander) (ComponentPlan, error) {
	type node struct {
		ComponentNode
		search   int32 // search that reached it first
		expanded bool
	}
	nodes := map[string]*node{}
	var parent []int32 // union-find over searches
	find := func(s int32) int32 {
		for parent[s] != s {
			parent[s] = parent[parent[s]]
			s = parent[s]
		}
		return s
	}
	frontier := map[int32][]string{} // per search (not root): entities reached, not yet expanded
	visitedBy := map[int32]int{}     // per search: entities expanded

	var plan ComponentPlan
	expandAll := func(ids []string) error {
		if len(ids) == 0 {
			return nil
		}
		got, err := expand(ctx, ids)
		if err != nil {
			return err
		}
		plan.Visited += len(got)
		for _, id := range ids {
			n := nodes[id]
			cn, ok := got[id]
			if !ok {
				// Gone (a removed entity, or a relation's end that is no longer an entity).
				delete(nodes, id)
				continue
			}
			n.ComponentNode, n.expanded = cn, true
			visitedBy[n.search]++
			for _, v := range cn.Neighbours {
				m, seen := nodes[v]
				if !seen {
					nodes[v] = &node{search: n.search}
					frontier[n.search] = append(frontier[n.search], v)
					continue
				}
				if a, b := find(n.search), find(m.search); a != b {
					parent[max(a, b)] = min(a, b)
				}
			}
		}
		return nil
	}

	// Each seed starts a search of its own.
	var start []string
	for _, id := range seeds {
		if _, dup := nodes[id]; dup {
			continue
		}
		s := int32(len(parent))
		parent = append(parent, s)
		nodes[id] = &node{search: s}
		start = append(start, id)
	}
	plan.Searches = len(parent)
	if err := expandAll(start); err != nil {
		return ComponentPlan{}, err
	}
	var running []int32 // roots of the searches that stopped with entities left to visit
	for {
		if err := ctx.Err(); err != nil {
			return ComponentPlan{}, fmt.Errorf("components: %w", err)
		}
		// Group frontiers, visited counts and stored components by root.
		left := map[int32][]string{}
		size := map[int32]int{}
		for s, f := range frontier {
			r := find(s)
			left[r] = append(left[r], f...)
		}
		for s, k := range visitedBy {
			size[find(s)] += k
		}
		clear(frontier)
		var active []int32
		for r, f := range left {
			if len(f) > 0 {
				active = append(active, r)
			}
		}
		// Searches can still meet only through a stored component they share: a path between
		// two crosses from one stored component to another only by an added relation, whose
		// ends are seeds, searched from the start and so in one search holding both
		// components. A search that shares no stored component with another still running
		// stops, and what it did not visit is the rest of its stored components (a search
		// that holds none goes on: its frontier would be unnamed).
		owner := map[int64]int32{} // stored component -> an active root holding it
		link := map[int32]int32{}  // union-find over active roots sharing a stored component
		var findLink func(int32) int32
		findLink = func(r int32) int32 {
			if p, ok := link[r]; ok && p != r {
				p = findLink(p)
				link[r] = p
				return p
			}
			return r
		}
		isActive := map[int32]bool{}
		for _, r := range active {
			isActive[r], link[r] = true, r
		}
		hasStored := map[int32]bool{}
		for _, n := range nodes {
			if !n.expanded || n.Component < 0 {
				continue
			}
			r := find(n.search)
			if !isActive[r] {
				continue
			}
			hasStored[r] = true
			if o, ok := owner[n.Component]; ok {
				a, b := findLink(o), findLink(r)
				link[max(a, b)] = min(a, b)
			} else {
				owner[n.Component] = r
			}
		}
		sharing := map[int32]int{}
		for _, r := range active {
			sharing[findLink(r)]++
		}
		var moving []int32
		for _, r := range active {
			if sharing[findLink(r)] > 1 || !hasStored[r] {
				moving = append(moving, r)
			} else {
				running = append(running, r)
				frontier[r] = left[r]
			}
		}
		if len(moving) == 0 {
			break
		}
		// The smallest searches advance (those within twice the smallest's size), so that a
		// large piece is not walked while a small one would finish first.
		slices.SortFunc(moving, func(a, b int32) int { return cmp.Or(cmp.Compare(size[a], size[b]), cmp.Compare(a, b)) })
		limit := 2*size[moving[0]] + 1
		var next []string
		for _, r := range moving {
			if size[r] <= limit {
				next = append(next, left[r]...)
			} else {
				frontier[r] = left[r]
			}
		}
		// Stopped searches are decided again next round, with the others.
		for _, r := range running {
			delete(frontier, r)
			frontier[r] = left[r]
		}
		running = running[:0]
		// Nodes reached by two searches in one level are queued twice: expand each once.
		slices.Sort(next)
		next = slices.Compact(next)
		var fresh []string
		for _, id := range next {
			if n, ok := nodes[id]; ok && !n.expanded {
				fresh = append(fresh, id)
			}
		}
		if err := expandAll(fresh); err != nil {
			return ComponentPlan{}, err
		}
	}

	// Components: the expanded entities by root; the running search, if any, also holds what
	// it did not visit.
	members := map[int32][]string{}
	for id, n := range nodes {
		if n.expanded {
			r := find(n.search)
			members[r] = append(members[r], id)
		}
	}
	stopped := map[int32]bool{}
	for _, r := range running {
		stopped[r] = true
	}
	roots := make([]int32, 0, len(members))
	for r := range members {
		roots = append(roots, r)
		slices.Sort(members[r])
	}
	// The stopped searches first (each keeps the id of the large component it stopped in),
	// then the others, each in order of its smallest entity, so that the plan does not depend
	// on map order.
	slices.SortFunc(roots, func(a, b int32) int {
		if stopped[a] != stopped[b] {
			if stopped[a] {
				return -1
			}
			return 1
		}
		return cmp.Compare(members[a][0], members[b][0])
	})
	taken := map[int64]bool{}
	id := make(map[int32]int64, len(roots))
	for _, r := range roots {
		count := map[int64]int{}
		for _, e := range members[r] {
			if c := nodes[e].Component; c >= 0 && !taken[c] {
				count[c]++
			}
		}
		best, bestN := int64(-1), 0
		for c, k := range count {
			if k > bestN || k == bestN && c < best {
				best, bestN = c, k
			}
		}
		if best < 0 {
			best = nextID
			nextID++
		}
		taken[best] = true
		id[r] = best
	}
	touched := map[int64]bool{}
	for _, n := range nodes {
		if n.expanded && n.Component >= 0 {
			touched[n.Component] = true
		}
	}
	plan.Touched, plan.Components = len(touched), len(roots)
	relabel := map[int64]int64{} // stored component -> the one its unvisited entities get
	for _, r := range roots {
		if !stopped[r] {
			continue
		}
		from := map[int64]bool{}
		for _, e := range members[r] {
			if c := nodes[e].Component; c >= 0 && c != id[r] {
				from[c] = true
				relabel[c] = id[r]
			}
		}
		if len(from) > 0 {
			plan.Relabel = append(plan.Relabel, ComponentRelabel{Keep: id[r], From: slices.Sorted(maps.Keys(from))})
		}
	}
	for _, r := range roots {
		for _, e := range members[r] {
			n := nodes[e]
			stored := n.Component
			if k, ok := relabel[stored]; ok {
				stored = k
			}
			if stored != id[r] || n.Degree != n.Related {
				plan.Writes = append(plan.Writes, ComponentWrite{ID: e, Component: id[r], Degree: n.Related})
			}
		}
	}
	slices.SortFunc(plan.Writes, func(a, b ComponentWrite) int { return cmp.Compare(a.ID, b.ID) })
	return plan, nil
}
