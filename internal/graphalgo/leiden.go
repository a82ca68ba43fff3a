package graphalgo

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"unsafe"
)

// LeidenOptions configures Leiden. The zero value selects the defaults that strata uses for both
// backends (the same as GDS's): Gamma 1, Theta 0.01, Tolerance 1e-4, MaxLevels 10,
// plus further iterations while they pay off (see Iterations).
type LeidenOptions struct {
	// Gamma is the modularity resolution. Larger values give more, smaller communities. Values
	// <= 0 select 1.
	Gamma float64
	// Theta controls the randomness of the refinement phase: a node joins a sub-community with a
	// probability proportional to exp(gain/Theta), the gain being measured in edge-weight units
	// as in GDS and the reference Java implementation. Small values make the refinement almost
	// greedy. Values <= 0 select 0.01.
	Theta float64
	// Tolerance is the smallest modularity gain of a level for which another level is computed
	// in the iterations that build the hierarchy (further iterations, which only improve the
	// final partition, run their levels out). Zero selects 1e-4; a negative value means 0, so
	// that levels are added for as long as modularity grows at all.
	Tolerance float64
	// MaxLevels bounds the number of levels (local moving + refinement + aggregation rounds)
	// of one iteration. Values <= 0 select 10.
	MaxLevels int
	// Iterations bounds the number of Leiden iterations. The first builds the hierarchy; each
	// further one starts again from the original graph with the current final partition and
	// replaces it when it raises modularity. Values <= 0 mean: iterate until an iteration
	// raises modularity by less than Tolerance/10 (with a negative Tolerance: not at all, like
	// leidenalg with n_iterations=-1). 1 gives a single pass, as GDS does.
	Iterations int
	// Seed seeds the random node orders and the refinement choices. The same seed on the same
	// graph gives the same result.
	Seed int64
	// Initial, when not nil, starts Leiden from a known hierarchy (a stored one, so that an
	// update of the graph keeps the communities it does not touch) instead of from singletons.
	// Initial[k] is a partition of the nodes of the graph for level k, finest first like
	// LeidenResult.Levels: one entry per node, a community number in [0, NumNodes) or -1 for a
	// node that has none (a new one). Level 0's local moving starts with every node in its
	// community of Initial[0] (a node with -1 alone); level k > 0, on the aggregate graph of the
	// refined communities of level k-1, starts with every aggregate node in the community of
	// Initial[k] of its smallest member that has one (alone when none has), where unseeded
	// Leiden starts it in its community of level k-1. Below the last seeded level, local moving
	// keeps every node in its seeded community of the next level (that of its smallest member
	// that has one; a node none of whose members has one is free), so that the levels stay
	// nested as the seeding ones were. A build's intermediate levels are local optima only under
	// such a constraint (they were computed within the final partition, and nested after), so
	// that free nodes moved far from any change. What must cross the communities of a level
	// goes up to the next level, whose aggregate nodes move between them; the last seeded level
	// is free. A seeded run is one iteration
	// (Iterations is ignored): further ones rebuild the levels from singletons, which is what
	// seeding avoids. It has len(Initial) levels at most (fewer when equal levels are merged),
	// so that its levels correspond to the seeding ones; Tolerance does not stop it.
	Initial [][]int32
	// Frontier, with Initial, makes local moving visit only the nodes near a change, as dynamic
	// Leiden's "dynamic frontier" does: at first the Affected nodes and those without an initial
	// community; a node that moves queues again the neighbours that may join its communities
	// (those constrained to another community of the next level may not: see moveNodes). At a
	// coarser level the aggregate nodes holding a node that was affected or moved at a finer
	// level start in the queue. Where nothing changed, the seeded communities then stay exactly
	// as they are, which a run visiting every node does not promise: the initial partition is
	// rarely a local optimum of this run's aggregate graphs, and the moves it makes anywhere
	// rename the communities they touch.
	Frontier bool
	// Affected lists the nodes whose neighbourhood changed (Frontier).
	Affected []int32
	// Release, when not nil, is called on a graph of collectNodes nodes or more where Leiden
	// has let go of large arrays and is about to allocate others (the caller's memory policy,
	// memstat.Policy.Release, decides what to do then).
	Release func()
}

func (o LeidenOptions) withDefaults() LeidenOptions {
	d := DefaultLeidenOptions()
	if o.Gamma <= 0 || math.IsNaN(o.Gamma) {
		o.Gamma = d.Gamma
	}
	if o.Theta <= 0 || math.IsNaN(o.Theta) {
		o.Theta = d.Theta
	}
	switch {
	case o.Tolerance == 0 || math.IsNaN(o.Tolerance):
		o.Tolerance = d.Tolerance
	case o.Tolerance < 0:
		o.Tolerance = 0
	}
	if o.MaxLevels <= 0 {
		o.MaxLevels = d.MaxLevels
	}
	return o
}

// LeidenResult is the community hierarchy found by Leiden.
type LeidenResult struct {
	// Levels holds one partition of the nodes per level, finest first, like the
	// intermediateCommunityIds of GDS. Each has one community id per node, dense from 0 and
	// numbered in order of the smallest node of each community. Every level is a coarsening of
	// the previous one, every community is connected, and consecutive levels differ. The last
	// level is the final Leiden partition.
	Levels [][]int
	// Modularity is the modularity (with the requested Gamma) of each level.
	Modularity []float64
}

// Final returns the final (coarsest) partition, nil for an empty graph.
func (r LeidenResult) Final() []int {
	if len(r.Levels) == 0 {
		return nil
	}
	return r.Levels[len(r.Levels)-1]
}

// Leiden finds communities that maximise modularity with the algorithm of Traag, Waltman and
// van Eck (2019), "From Louvain to Leiden: guaranteeing well-connected communities". Each level
// consists of
//
//   - fast local moving: nodes are visited from a queue (in random order at first) and moved to
//     the neighbouring community with the best modularity gain; when a node moves, its
//     neighbours outside its new community are queued again;
//   - refinement: inside every community, starting from singletons, well-connected nodes are
//     merged into well-connected sub-communities chosen at random with probability
//     proportional to exp(gain/Theta), so that every community of the next level is built from
//     connected pieces;
//   - aggregation: the refined sub-communities become the nodes of the next level's graph, and
//     the next level starts from the (non-refined) communities found by local moving.
//
// The partition after local moving, mapped back to the original nodes, is recorded per level.
// Levels stop when local moving leaves every node of the aggregate graph alone, when a level
// improves modularity by less than Tolerance, or after MaxLevels levels. That is one
// iteration; further iterations (see LeidenOptions.Iterations) start again from the original
// graph with the result as the initial partition and replace the final partition while they
// improve it. When they did, the levels are rebuilt by one more iteration from singletons in
// which nodes may only join communities inside their final community, so that the hierarchy
// leads up to the final partition instead of to the one it replaced.
//
// A refined sub-community can still leave its community at the next level, so the raw
// per-level partitions need not be nested. Because strata builds a strict hierarchy from the
// levels, each level is intersected with the next (coarser) one, and every community that is
// not connected is split into its connected components (splitting can only raise modularity;
// Leiden already keeps communities connected, so this is a safety net). Apart from that split,
// the final partition is left as Leiden produced it.
func Leiden(g *Graph, opt LeidenOptions) LeidenResult {
	levels, q, _ := LeidenLevels(context.Background(), g, opt) // cannot be cancelled
	if levels == nil {
		return LeidenResult{}
	}
	res := LeidenResult{Levels: make([][]int, len(levels)), Modularity: q}
	for k, lv := range levels {
		out := make([]int, len(lv))
		for i, c := range lv {
			out[i] = int(c)
		}
		res.Levels[k] = out
	}
	return res
}

// LeidenLevels is Leiden with the levels as int32, 4 bytes a node and level where
// LeidenResult.Levels takes 8: the form for graphs of millions of nodes. It returns the levels
// (nil for an empty graph) and the modularity of each, exactly as Leiden does. It stops early
// with ctx's error when ctx is done: Leiden over millions of nodes runs for minutes.
func LeidenLevels(ctx context.Context, g *Graph, opt LeidenOptions) ([][]int32, []float64, error) {
	opt = opt.withDefaults()
	n := g.NumNodes()
	if n == 0 {
		return nil, nil, nil
	}
	if g.total <= 0 {
		// No edges with weight: every node is its own community, modularity is undefined and
		// reported as 0 like Modularity does.
		lv := make([]int32, n)
		for i := range lv {
			lv[i] = int32(i)
		}
		return [][]int32{lv}, []float64{modularityDense(g, lv, n, opt.Gamma)}, nil
	}

	l := newLeiden(n, opt)
	l.ctx = ctx
	part := make([]int32, n)
	for i := range part {
		part[i] = int32(i)
	}
	if opt.Initial != nil {
		for k, lv := range opt.Initial {
			if len(lv) != n {
				return nil, nil, fmt.Errorf("leiden: initial level %d has %d entries for %d nodes", k, len(lv), n)
			}
			for i, c := range lv {
				if c < -1 || int(c) >= n {
					return nil, nil, fmt.Errorf("leiden: initial level %d: node %d in community %d, outside [-1, %d)", k, i, c, n)
				}
			}
		}
		for _, u := range opt.Affected {
			if u < 0 || int(u) >= n {
				return nil, nil, fmt.Errorf("leiden: affected node %d outside [0, %d)", u, n)
			}
		}
		l.seedLevel(part, opt.Initial[0], nil)
		steps, _ := l.run(g, part, nil, opt, true, opt.Initial)
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		l.keepEqual = true
		return l.finish(g, steps, nil)
	}
	start := *l.src // the random state the first iteration starts from
	polishes := opt.Iterations <= 0 || opt.Iterations > 1
	var steps []levelStep
	final := make([]int32, n)
	if polishes {
		// The first iteration's levels are not kept: they are what later iterations replace
		// when they improve on it, and computed again below when they do not.
		_, last := l.run(g, part, nil, opt, false, nil)
		for i, m := range l.member {
			final[i] = last[m]
		}
	} else {
		steps, _ = l.run(g, part, nil, opt, true, nil)
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	if !polishes {
		return l.finish(g, steps, nil)
	}

	// Further iterations restart from the original graph with the current result as the
	// initial partition. They often gain several thousandths of modularity on graphs with weak
	// community structure, where one pass stops in a poor local optimum.
	q := l.modularity(g, final, nil, int(slices.Max(final))+1)
	improved := false
	polish := opt
	polish.Tolerance = 0 // these iterations only serve the final partition: run their levels out
	for it := 1; opt.Iterations <= 0 || it < opt.Iterations; it++ {
		copy(part, final)
		_, last := l.run(g, part, nil, polish, false, nil)
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		// The iteration's result is read through the node map, and written over final only
		// when it improves on it: no third partition of the input nodes.
		cq := l.modularity(g, last, l.member, int(slices.Max(last))+1)
		if !(cq-q > 1e-12) {
			break
		}
		for i, m := range l.member {
			final[i] = last[m]
		}
		gain := cq - q
		q, improved = cq, true
		if gain < opt.Tolerance/10 {
			// Later iterations gain less and less; below a tenth of the level tolerance they
			// no longer pay for a pass over the whole graph.
			break
		}
	}
	for i := range part {
		part[i] = int32(i)
	}
	if !improved {
		// No later iteration improved on the first: its levels again, from the same random
		// state and the same singletons, which is all an iteration depends on.
		*l.src = start
		steps, _ = l.run(g, part, nil, opt, true, nil)
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		return l.finish(g, steps, nil)
	}
	// The first iteration's levels lead up to a partition that later iterations replaced,
	// and intersecting them with the new one would fragment them. Build the hierarchy again
	// with one more iteration from singletons in which nodes may only join communities inside
	// their final community, so that every level is a good partition on its way to the final
	// one.
	steps, _ = l.run(g, part, final, opt, true, nil)
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	return l.finish(g, steps, final)
}

// finish maps the steps of the iteration that built the hierarchy to the nodes of g, nests the
// levels and computes their modularities. final, when not nil, is the partition the
// constrained iteration's levels lead up to: it becomes the last level unless the iteration's
// own last level is no worse (Leiden found a split that pays off). Equal consecutive levels are
// merged unless l.keepEqual.
func (l *leiden) finish(g *Graph, steps []levelStep, final []int32) ([][]int32, []float64, error) {
	n := g.NumNodes()
	// What is left of the iterations' arrays goes before the levels are mapped: the aggregate
	// graphs, the partitions they carried and the arrays of local moving and refinement
	// (some 40 bytes a node of the input), to make room for the levels (4 bytes a node and
	// level). On a graph of millions of nodes Release is called once they are let go: left to
	// the collector's pacing, the levels would pile on them, and the
	// levels do not fit the freed spans of other sizes (the 50 MiB adversarial document's
	// communities stage peaked here, 40 MB above the plateau of the iterations).
	member, first, id, parent, size := l.member, l.queue, l.size, l.pos, l.empty
	keepEqual, release := l.keepEqual, l.release
	*l = leiden{gamma: l.gamma, release: release}
	if n >= collectNodes {
		release()
	}
	raw := expandLevels(steps, grow(member, n))
	// The modularities accumulate per community, in arrays sized for the level with the most.
	var in, tot []float64
	modularity := func(lv []int32) float64 {
		nc := int(slices.Max(lv)) + 1
		in, tot = grow(in, nc), grow(tot, nc)
		return modularityInto(g, lv, nil, nc, l.gamma, in, tot)
	}
	if final != nil {
		// The constrained levels are subpartitions of the final one.
		if modularity(raw[len(raw)-1]) < modularity(final) {
			raw = append(raw, final)
		}
	}
	uf := unionFind{parent: parent[:0], size: size[:0]}
	levels := nestLevels(g, raw, first, id, &uf, keepEqual)
	mods := make([]float64, len(levels))
	for k, lv := range levels {
		// nestLevels numbers every level densely in order of first node, which is what
		// Modularity would renumber it to: the same value without a copy of the level.
		mods[k] = modularity(lv)
	}
	return levels, mods, nil
}

// run performs one Leiden iteration on g starting from the partition part (dense ids, updated
// in place): levels of local moving, refinement and aggregation until nothing merges any more,
// Tolerance or MaxLevels. With keepSteps it returns the levels as steps (see levelStep), which
// expandLevels maps to the nodes of g; without, it returns only the last level's partition of
// the last graph, whose node l.member[i] is the one node i of g belongs to. With cons non-nil, a
// node may only join a community of neighbours in the same cons group, and part must respect the
// groups. The first step's partition is part itself, which the caller leaves alone from then on.
//
// Apart from the steps it returns, an iteration allocates next to nothing once the first has run
// (only where its levels outgrow those of the iterations before): its arrays and aggregate graphs
// are l's, reused level after level, so that the iterations over a graph of millions of nodes
// leave no garbage to collect (the collector would let the heap grow by a share of everything
// live before it looked).
//
// With seeds (LeidenOptions.Initial; part is then seeds[0] made dense by the caller), level k's
// graph starts from seeds[k] rather than from the communities of level k-1, for k < len(seeds).
func (l *leiden) run(g *Graph, part, cons []int32, opt LeidenOptions, keepSteps bool, seeds [][]int32) ([]levelStep, []int32) {
	n := g.NumNodes()
	cur := g
	var member []int32 // without keepSteps: the node of cur that each node of g belongs to
	var spare []int32  // with keepSteps: the node map's storage, which the steps are cut from
	if keepSteps {
		// The iteration that keeps its steps needs no node map, and the storage of the one
		// before (4 bytes a node of g) holds the steps' arrays and the carried constraint: 12
		// bytes a node of every aggregate, which fits when the first aggregate has a quarter of
		// g's nodes or fewer. New arrays here came on top of the plateau of the iterations
		// before, as the collector had not yet taken the node map back (the 50 MiB adversarial
		// document's communities stage peaked there, 8 MB above that plateau).
		spare, l.member = l.member[:0], nil
	} else {
		l.member = grow(l.member, n)
		member = l.member
		for i := range member {
			member[i] = int32(i)
		}
	}
	var seedMember []int32  // with seeds: the node of cur that each node of g belongs to
	var nested []int32      // with seeds: the seeded community of the next level of cur's nodes
	var dirty, front []bool // with a frontier: input nodes affected or moved so far; cur's frontier
	if seeds != nil {
		seedMember, nested = make([]int32, n), make([]int32, n)
		for i := range seedMember {
			seedMember[i] = int32(i)
		}
		if opt.Frontier {
			dirty, front = make([]bool, n), make([]bool, n)
			for _, u := range opt.Affected {
				dirty[u] = true
			}
			for u, c := range seeds[0] {
				if c < 0 {
					dirty[u] = true
				}
			}
		}
	}
	var steps []levelStep
	prevQ := math.Inf(-1)
	for level := 0; level < opt.MaxLevels; level++ {
		var fr []bool
		if dirty != nil {
			fr = front[:cur.NumNodes()]
			clear(fr)
			for u, d := range dirty {
				if d {
					fr[seedMember[u]] = true
				}
			}
		}
		moveCons := cons
		if seeds != nil && level+1 < len(seeds) {
			// Below the coarsest seeded level a node moves within its seeded community of the
			// next level, -1 when it has none (see LeidenOptions.Initial).
			moveCons = nested[:cur.NumNodes()]
			for i := range moveCons {
				moveCons[i] = -2
			}
			for i, m := range seedMember {
				if moveCons[m] == -2 {
					moveCons[m] = seeds[level+1][i]
				}
			}
		}
		nc := l.moveNodes(cur, part, moveCons, fr)
		if l.ctx.Err() != nil {
			return nil, nil // discarded by the caller
		}
		if fr != nil {
			for u, m := range seedMember {
				dirty[u] = dirty[u] || fr[m]
			}
		}
		if keepSteps {
			st := levelStep{part: part} // the first level's is the caller's buffer
			if level > 0 {
				st.part = cut(&spare, len(part)) // part is the buffer of two levels on
				copy(st.part, part)
			}
			steps = append(steps, st)
		}
		if seeds != nil {
			if level+1 >= len(seeds) || level == opt.MaxLevels-1 {
				break // a seeded run has the seeding levels, no more
			}
		} else if nc == cur.NumNodes() || level == opt.MaxLevels-1 {
			break
		}
		if opt.Tolerance > 0 && seeds == nil { // with no tolerance, levels run until nothing merges
			q := l.modularity(cur, part, nil, nc)
			if q-prevQ < opt.Tolerance {
				break
			}
			prevQ = q
		}

		ref, nr := l.refine(cur, part, nc)
		// The next level's partition goes to the one of the two buffers that part is not.
		l.parts[level%2] = grow(l.parts[level%2], nr)
		next := l.parts[level%2]
		louvain := nr == cur.NumNodes()
		if louvain {
			// The refinement merged nothing, so aggregating it would give the same graph again.
			// Aggregate the communities themselves instead (one Louvain step), which still makes
			// progress.
			ref, nr, next = part, nc, next[:nc]
			for i := range next {
				next[i] = int32(i)
			}
		} else {
			for u, r := range ref {
				next[r] = part[u]
			}
		}
		if seedMember != nil && level+1 < len(seeds) {
			for i, m := range seedMember {
				seedMember[i] = ref[m]
			}
			l.seedLevel(next, seeds[level+1], seedMember)
		}
		agg := l.aggregate(cur, ref, nr, &l.aggs[level%2])
		if !keepSteps {
			for i, m := range member {
				member[i] = ref[m]
			}
		} else if st := &steps[len(steps)-1]; louvain {
			st.ref = st.part // the step's partition, already copied
		} else {
			// The step takes the refinement's buffer rather than a copy next to it (4 bytes a
			// node of g at the first level), and the next refinement gets one of its size.
			st.ref, l.ref = ref, cut(&spare, nr)
		}
		if cons != nil {
			// Every group of ref lies inside one cons group, so the constraint carries over.
			// A constraint only comes with keepSteps, so the spare storage is there to hold it.
			aggCons := cut(&spare, nr)
			for u, r := range ref {
				aggCons[r] = cons[u]
			}
			cons = aggCons
		}
		cur, part = agg, next
	}
	if keepSteps {
		return steps, nil
	}
	return nil, part
}

// seedLevel sets part, a partition of the nodes of a graph, from seed, a partition of the input
// nodes (community numbers below len(seed), -1 for none): with member nil the graph is the
// input and node i starts in seed[i]; otherwise input node i is in the graph's node member[i],
// which starts in the seed community of its smallest input node that has one. Nodes without a
// seed community start alone. The result is numbered densely in order of first node, as local
// moving expects.
func (l *leiden) seedLevel(part, seed, member []int32) {
	for i := range part {
		part[i] = -1
	}
	if member == nil {
		copy(part, seed)
	} else {
		for i, m := range member {
			if part[m] < 0 {
				part[m] = seed[i]
			}
		}
	}
	ids := make([]int32, len(seed)) // seed community -> dense number + 1
	k := int32(0)
	for u, c := range part {
		if c < 0 {
			part[u] = k
			k++
			continue
		}
		if ids[c] == 0 {
			k++
			ids[c] = k
		}
		part[u] = ids[c] - 1
	}
}

// cut returns k int32s from the unused capacity of *spare and extends *spare over them, or new
// ones when it is short.
func cut(spare *[]int32, k int) []int32 {
	s := *spare
	if cap(s)-len(s) < k {
		return make([]int32, k)
	}
	*spare = s[:len(s)+k]
	return s[len(s) : len(s)+k : len(s)+k]
}

// leiden holds the options, the random source and scratch buffers sized for the input graph,
// which every aggregate graph is no larger than. Reusing them keeps the hot loops free of
// allocation and maps: communities are accumulated in dense arrays indexed by community id, and
// only the touched entries are reset.
type leiden struct {
	gamma, theta float64
	rng          *rand.Rand
	src          *rand.PCG // rng's source, whose state LeidenLevels saves and restores
	// ctx stops a run early (LeidenLevels then returns its error): checked at every level
	// and every cancelEvery node visits of local moving.
	ctx context.Context
	// keepEqual keeps equal consecutive levels (a seeded run, whose levels correspond to the
	// seeding ones: a level that became equal to its neighbour where a change removed what
	// told them apart must not shift the levels coarser than it).
	keepEqual bool
	// release is LeidenOptions.Release, never nil.
	release func()

	pos      []int32   // community -> index in touched, or -1
	touched  []int32   // communities seen around the current node
	touchedW []float64 // weight from the current node to each touched community
	gains    []float64 // refinement gain per touched community, NaN when not eligible

	tot   []float64 // total strength per community
	size  []int32   // number of nodes per community
	empty []int32   // ids of empty communities, a stack
	queue []int32   // ring buffer of nodes to visit
	inQ   []bool

	cw     []float64 // refinement: strength per sub-community
	ext    []float64 // refinement: weight from a sub-community to the rest of its community
	single []bool    // refinement: sub-community still holds only its founding node
	// ctot is the refinement's strength per community, sized for the most communities a
	// refinement has seen (local moving leaves a fraction of the nodes'). Local moving and
	// refinement never overlap, and neither overlaps the aggregation, so that ext lies in tot's
	// storage (local moving, then refinement and modularity), size and empty in cw's
	// (local moving and aggregation, then refinement and modularity) and single in inQ's:
	// 17 bytes a node, 31 MB of a graph of 1.8 million nodes.
	ctot []float64

	// What run reuses from level to level and iteration to iteration, grown when too short.
	member []int32    // node of the current graph that each input node belongs to
	ref    []int32    // the refined partition of the current graph
	parts  [2][]int32 // the partition the next level starts from, alternately
	aggs   [2]Graph   // the aggregate graphs, alternately
}

// grow returns s with length n, reallocated when its capacity is short.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

func newLeiden(n int, opt LeidenOptions) *leiden {
	l := &leiden{
		gamma:    opt.Gamma,
		theta:    opt.Theta,
		src:      rand.NewPCG(uint64(opt.Seed), 0x5eed1e1de),
		ctx:      context.Background(),
		release:  opt.Release,
		pos:      make([]int32, n),
		touched:  make([]int32, 0, 64),
		touchedW: make([]float64, 0, 64),
		gains:    make([]float64, 0, 64),
		tot:      make([]float64, n),
		queue:    make([]int32, n),
		inQ:      make([]bool, n),
		cw:       make([]float64, n),
	}
	l.rng = rand.New(l.src)
	if l.release == nil {
		l.release = func() {}
	}
	l.ext = l.tot
	l.single = l.inQ
	l.size, l.empty = int32Halves(l.cw)
	for i := range l.pos {
		l.pos[i] = -1
	}
	return l
}

// int32Halves returns two int32 slices of len(buf) entries each that share buf's storage, the
// first of length len(buf) and the second of length 0 with room for len(buf): a float64 array
// holds exactly two int32 arrays of its length, and none of them holds pointers.
func int32Halves(buf []float64) (a, b []int32) {
	n := len(buf)
	if n == 0 {
		return nil, nil
	}
	ints := unsafe.Slice((*int32)(unsafe.Pointer(unsafe.SliceData(buf))), 2*n)
	return ints[:n:n], ints[n : n : 2*n]
}

// collectNodes is the size of graph from which Leiden calls LeidenOptions.Release at the turns
// where it has let go of large arrays and its next allocations would otherwise pile on them:
// below it, the arrays are a few hundred KB and a collection would cost more than it saves.
const collectNodes = 1 << 16
