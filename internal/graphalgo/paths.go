package graphalgo

import (
	"math"
	"slices"
)

// Pair is a source/destination pair for ShortestPaths.
type Pair struct{ Src, Dst int }

// ShortestPaths returns, for every pair, a path with the fewest edges from src to dst, as the
// list of nodes from src to dst inclusive, or nil if dst cannot be reached within maxHops edges
// (maxHops <= 0 means no limit) or either node is out of range. For src == dst the path is
// [src]. The result is parallel to pairs.
//
// Each search runs from both ends at once (bidirectional BFS, expanding the smaller frontier one
// whole level at a time), so it visits about the square root of what a search from src alone
// would on graphs whose neighbourhoods grow fast. Among several shortest paths it returns the one
// through the lowest-numbered node where the two searches first meet, reaching that node from
// each end along the first-discovered parents.
//
// The call allocates O(NumNodes) scratch space, reused for every pair; a PathFinder keeps it
// across calls.
func ShortestPaths(g *Graph, pairs []Pair, maxHops int) [][]int {
	return NewPathFinder(g).BatchBFS(pairs, maxHops)
}

// PathFinder runs shortest-path searches on one graph and keeps its O(NumNodes) scratch space
// between calls; entries are invalidated by bumping a generation counter instead of clearing
// them, so a search costs only what it visits. A PathFinder is not safe for concurrent use;
// create one per goroutine.
type PathFinder struct {
	g      *Graph
	gen    uint32
	seen   []uint32 // seen[v] == gen: v was reached from the source
	parent []int32  // BFS parent of v on the source's side

	// BFS from the destination's side, and the frontiers of both sides.
	seenB   []uint32
	parentB []int32
	front   [4][]int32 // current and next level, source side then destination side
}

// NewPathFinder returns a PathFinder for g.
func NewPathFinder(g *Graph) *PathFinder {
	n := g.NumNodes()
	return &PathFinder{
		g:       g,
		seen:    make([]uint32, n),
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
		pf.gen = 1
	}
}

func (pf *PathFinder) valid(u int) bool { return u >= 0 && u < pf.g.NumNodes() }

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
