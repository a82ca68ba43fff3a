package graphalgo

import (
	"math"
	"slices"
)

// Pair is a source/destination pair for the batch shortest-path functions.
type Pair struct{ Src, Dst int }

// ShortestPathBFS returns a path with the fewest edges from src to dst, as the list of nodes
// from src to dst inclusive, or nil if dst cannot be reached within maxHops edges (maxHops <= 0
// means no limit) or either node is out of range. For src == dst the path is [src].
//
// The search runs from both ends at once (bidirectional BFS, expanding the smaller frontier one
// whole level at a time), so it visits about the square root of what a search from src alone
// would on graphs whose neighbourhoods grow fast. Among several shortest paths it returns the one
// through the lowest-numbered node where the two searches first meet, reaching that node from
// each end along the first-discovered parents.
//
// Each call allocates O(NumNodes) scratch space; use a PathFinder, or ShortestPaths for many
// pairs, to reuse it.
func ShortestPathBFS(g *Graph, src, dst, maxHops int) []int {
	return NewPathFinder(g).BFS(src, dst, maxHops)
}

// ShortestPathDijkstra returns a cheapest path from src to dst with at most maxHops edges
// (maxHops <= 0 means no limit) and its cost, where an edge of weight w costs cost(w); a nil
// cost uses the weight itself. Edges whose cost is negative, NaN or +Inf are treated as absent,
// since Dijkstra's algorithm needs non-negative costs. When there is no such path it returns
// nil and +Inf. For src == dst the path is [src] with cost 0.
//
// With a hop limit the cheapest path may not be the one plain Dijkstra finds (a cheaper path
// may need more edges), so the search runs over (node, hops) labels and keeps every label not
// dominated by one with both fewer hops and lower cost; without a limit it is plain Dijkstra.
func ShortestPathDijkstra(g *Graph, src, dst, maxHops int, cost func(w float64) float64) ([]int, float64) {
	return NewPathFinder(g).Dijkstra(src, dst, maxHops, cost)
}

// ShortestPaths computes ShortestPathBFS for every pair, reusing the scratch buffers
// throughout. The result is parallel to pairs.
func ShortestPaths(g *Graph, pairs []Pair, maxHops int) [][]int {
	return NewPathFinder(g).BatchBFS(pairs, maxHops)
}

// ShortestPathsDijkstra is the batch form of ShortestPathDijkstra: one search per distinct
// source. It returns the paths and their costs, parallel to pairs.
func ShortestPathsDijkstra(g *Graph, pairs []Pair, maxHops int, cost func(w float64) float64) ([][]int, []float64) {
	return NewPathFinder(g).BatchDijkstra(pairs, maxHops, cost)
}

// PathFinder runs shortest-path searches on one graph and keeps its O(NumNodes) scratch space
// between calls; entries are invalidated by bumping a generation counter instead of clearing
// them, so a search costs only what it visits. A PathFinder is not safe for concurrent use;
// create one per goroutine.
type PathFinder struct {
	g      *Graph
	gen    uint32
	seen   []uint32 // seen[v] == gen: v has a label in this search (BFS: reached from the source)
	want   []uint32 // want[v] == gen: v is a destination of this search
	parent []int32  // BFS parent of v on the source's side

	// BFS from the destination's side, and the frontiers of both sides.
	seenB   []uint32
	parentB []int32
	front   [4][]int32 // current and next level, source side then destination side

	// Dijkstra: labels live in an arena; per node the best tentative label and the fewest hops
	// of a settled label.
	labels   []label
	heap     []heapItem
	tentD    []float64
	tentH    []int32
	doneH    []int32 // fewest hops among settled labels of v (valid when done[v] == gen)
	done     []uint32
	firstLab []int32 // arena index of the first settled label of v, which is the cheapest
}

type label struct {
	node, hops, parent int32
	dist               float64
}

type heapItem struct {
	dist float64
	idx  int32
}

// NewPathFinder returns a PathFinder for g.
func NewPathFinder(g *Graph) *PathFinder {
	n := g.NumNodes()
	return &PathFinder{
		g:       g,
		seen:    make([]uint32, n),
		want:    make([]uint32, n),
		parent:  make([]int32, n),
		seenB:   make([]uint32, n),
		parentB: make([]int32, n),
	}
}

// next starts a new search generation.
func (pf *PathFinder) next() {
	pf.gen++
	if pf.gen == 0 { // wrapped: old stamps could collide, so clear them once
		clear(pf.seen)
		clear(pf.seenB)
		clear(pf.want)
		clear(pf.done)
		pf.gen = 1
	}
}

func (pf *PathFinder) valid(u int) bool { return u >= 0 && u < pf.g.NumNodes() }

// BFS is ShortestPathBFS using pf's buffers.
func (pf *PathFinder) BFS(src, dst, maxHops int) []int {
	out := pf.BatchBFS([]Pair{{src, dst}}, maxHops)
	return out[0]
}

// BatchBFS is ShortestPaths using pf's buffers.
func (pf *PathFinder) BatchBFS(pairs []Pair, maxHops int) [][]int {
	out := make([][]int, len(pairs))
	limit := int32(math.MaxInt32)
	if maxHops > 0 && maxHops < math.MaxInt32 {
		limit = int32(maxHops)
	}
	for i, p := range pairs {
		if pf.valid(p.Src) && pf.valid(p.Dst) {
			out[i] = pf.bfs(int32(p.Src), int32(p.Dst), limit)
		}
	}
	return out
}

// bfs returns a shortest path from src to dst of at most limit edges, or nil: one level at a
// time from the side whose frontier is smaller, until a level reaches a node the other side has
// seen. Every node met in that level lies on a shortest path (were one of them closer to the
// other end, the two sides would have met a level earlier), so the lowest-numbered one is taken.
func (pf *PathFinder) bfs(src, dst, limit int32) []int {
	if src == dst {
		return []int{int(src)}
	}
	g := pf.g
	pf.next()
	pf.seen[src], pf.parent[src] = pf.gen, -1
	pf.seenB[dst], pf.parentB[dst] = pf.gen, -1
	fwd, bwd := append(pf.front[0][:0], src), append(pf.front[2][:0], dst)
	fwdNext, bwdNext := pf.front[1][:0], pf.front[3][:0]
	meet := int32(-1)
	for hops := int32(0); meet < 0 && hops < limit && len(fwd) > 0 && len(bwd) > 0; hops++ {
		forward := len(fwd) <= len(bwd)
		frontier, next, seen, parent, other := fwd, fwdNext[:0], pf.seen, pf.parent, pf.seenB
		if !forward {
			frontier, next, seen, parent, other = bwd, bwdNext[:0], pf.seenB, pf.parentB, pf.seen
		}
		for _, u := range frontier {
			for _, v := range g.targets[g.offsets[u]:g.offsets[u+1]] {
				if seen[v] == pf.gen {
					continue
				}
				seen[v], parent[v] = pf.gen, u
				next = append(next, v)
				if other[v] == pf.gen && (meet < 0 || v < meet) {
					meet = v
				}
			}
		}
		if forward {
			fwd, fwdNext = next, fwd
		} else {
			bwd, bwdNext = next, bwd
		}
	}
	pf.front = [4][]int32{fwd, fwdNext, bwd, bwdNext}
	if meet < 0 {
		return nil
	}
	var path []int
	for v := meet; v >= 0; v = pf.parent[v] {
		path = append(path, int(v))
	}
	slices.Reverse(path)
	for v := pf.parentB[meet]; v >= 0; v = pf.parentB[v] {
		path = append(path, int(v))
	}
	return path
}

// Dijkstra is ShortestPathDijkstra using pf's buffers.
func (pf *PathFinder) Dijkstra(src, dst, maxHops int, cost func(w float64) float64) ([]int, float64) {
	paths, costs := pf.BatchDijkstra([]Pair{{src, dst}}, maxHops, cost)
	return paths[0], costs[0]
}

// BatchDijkstra is ShortestPathsDijkstra using pf's buffers.
func (pf *PathFinder) BatchDijkstra(pairs []Pair, maxHops int, cost func(w float64) float64) ([][]int, []float64) {
	if pf.done == nil {
		n := pf.g.NumNodes()
		pf.tentD = make([]float64, n)
		pf.tentH = make([]int32, n)
		pf.doneH = make([]int32, n)
		pf.done = make([]uint32, n)
		pf.firstLab = make([]int32, n)
	}
	if cost == nil {
		cost = func(w float64) float64 { return w }
	}
	paths := make([][]int, len(pairs))
	costs := make([]float64, len(pairs))
	for i := range costs {
		costs[i] = math.Inf(1)
	}
	for _, group := range groupBySource(pairs) {
		src := pairs[group[0]].Src
		if !pf.valid(src) {
			continue
		}
		pf.next()
		remaining := pf.markTargets(pairs, group)
		pf.dijkstra(int32(src), maxHops, remaining, cost)
		for _, i := range group {
			d := pairs[i].Dst
			if pf.valid(d) && pf.done[d] == pf.gen {
				paths[i], costs[i] = pf.labelPath(pf.firstLab[d])
			}
		}
	}
	return paths, costs
}

func (pf *PathFinder) dijkstra(src int32, maxHops, remaining int, cost func(float64) float64) {
	g := pf.g
	limited := maxHops > 0
	pf.labels = pf.labels[:0]
	pf.heap = pf.heap[:0]
	pf.push(label{node: src, hops: 0, parent: -1, dist: 0})
	pf.seen[src] = pf.gen
	pf.tentD[src], pf.tentH[src] = 0, 0
	for len(pf.heap) > 0 && remaining > 0 {
		idx := pf.pop()
		lb := pf.labels[idx]
		u := lb.node
		if pf.done[u] == pf.gen {
			// Settled before with a lower cost; this label is only useful if it needs fewer
			// hops (and hence can reach further under the limit).
			if !limited || lb.hops >= pf.doneH[u] {
				continue
			}
			pf.doneH[u] = lb.hops
		} else {
			pf.done[u] = pf.gen
			pf.doneH[u] = lb.hops
			pf.firstLab[u] = idx
			if pf.want[u] == pf.gen {
				remaining--
			}
		}
		if limited && int(lb.hops) >= maxHops {
			continue
		}
		h := lb.hops
		if limited {
			h++
		}
		a, b := g.offsets[u], g.offsets[u+1]
		ws := g.weights[a:b]
		for i, v := range g.targets[a:b] {
			c := cost(float64(ws[i]))
			if !(c >= 0) || math.IsInf(c, 1) {
				continue
			}
			d := lb.dist + c
			if pf.seen[v] == pf.gen {
				if pf.tentD[v] <= d && pf.tentH[v] <= h {
					continue // dominated
				}
				if pf.done[v] == pf.gen && (!limited || pf.doneH[v] <= h) {
					continue
				}
			} else {
				pf.seen[v] = pf.gen
				pf.tentD[v], pf.tentH[v] = math.Inf(1), math.MaxInt32
			}
			if d < pf.tentD[v] || (d == pf.tentD[v] && h < pf.tentH[v]) {
				pf.tentD[v], pf.tentH[v] = d, h
			}
			pf.push(label{node: v, hops: h, parent: idx, dist: d})
		}
	}
}

func (pf *PathFinder) labelPath(idx int32) ([]int, float64) {
	var path []int
	d := pf.labels[idx].dist
	for i := idx; i >= 0; i = pf.labels[i].parent {
		path = append(path, int(pf.labels[i].node))
	}
	slices.Reverse(path)
	return path, d
}

// push adds a label to the arena and the binary heap.
func (pf *PathFinder) push(lb label) {
	idx := int32(len(pf.labels))
	pf.labels = append(pf.labels, lb)
	h := append(pf.heap, heapItem{lb.dist, idx})
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !less(h[i], h[p]) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
	pf.heap = h
}

// pop removes the cheapest label from the heap and returns its arena index.
func (pf *PathFinder) pop() int32 {
	h := pf.heap
	top := h[0].idx
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	i := 0
	for {
		l := 2*i + 1
		if l >= len(h) {
			break
		}
		m := l
		if r := l + 1; r < len(h) && less(h[r], h[l]) {
			m = r
		}
		if !less(h[m], h[i]) {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
	pf.heap = h
	return top
}

// less orders heap items by cost, then by insertion, which makes the search deterministic.
func less(a, b heapItem) bool {
	return a.dist < b.dist || (a.dist == b.dist && a.idx < b.idx)
}

// groupBySource returns the indices of pairs grouped by source, groups ordered by source and
// indices within a group in their original order.
func groupBySource(pairs []Pair) [][]int {
	idx := make([]int, len(pairs))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return pairs[a].Src - pairs[b].Src })
	var groups [][]int
	for i := 0; i < len(idx); {
		j := i + 1
		for j < len(idx) && pairs[idx[j]].Src == pairs[idx[i]].Src {
			j++
		}
		groups = append(groups, idx[i:j])
		i = j
	}
	return groups
}

// markTargets starts a search generation's target set: the valid, distinct destinations of the
// pairs in group. It returns how many there are, so the search can stop once all are reached.
func (pf *PathFinder) markTargets(pairs []Pair, group []int) int {
	remaining := 0
	for _, i := range group {
		d := pairs[i].Dst
		if pf.valid(d) && pf.want[d] != pf.gen {
			pf.want[d] = pf.gen
			remaining++
		}
	}
	return remaining
}
