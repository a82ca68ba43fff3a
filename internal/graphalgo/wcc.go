package graphalgo

import "fmt"

// unionFind is a disjoint-set forest with union by size and path halving, which keeps both
// operations effectively constant time.
type unionFind struct {
	parent []int32
	size   []int32
}

// reset makes n singleton sets, reusing the storage when it is large enough.
func (uf *unionFind) reset(n int) {
	if cap(uf.parent) < n {
		uf.parent = make([]int32, n)
		uf.size = make([]int32, n)
	}
	uf.parent, uf.size = uf.parent[:n], uf.size[:n]
	for i := range uf.parent {
		uf.parent[i] = int32(i)
		uf.size[i] = 1
	}
}

func (uf *unionFind) find(x int32) int32 {
	p := uf.parent
	for p[x] != x {
		p[x] = p[p[x]]
		x = p[x]
	}
	return x
}

func (uf *unionFind) union(a, b int32) {
	ra, rb := uf.find(a), uf.find(b)
	if ra == rb {
		return
	}
	if uf.size[ra] < uf.size[rb] {
		ra, rb = rb, ra
	}
	uf.parent[rb] = ra
	uf.size[ra] += uf.size[rb]
}

// WCCSource returns the weakly connected components (for an undirected graph, simply its
// connected components) of the graph of n nodes and the edges of src, read once, without
// building its adjacency, in 4 bytes a node (union-find) besides the result. component[u] is the
// component of node u; ids are dense from 0 and numbered in order of each component's smallest
// node, so node 0 is always in component 0. sizes[c] is the number of nodes in component c.
// Edges of weight 0 still connect their ends. Edges must lie in [0, n).
func WCCSource(n int, src EdgeSource) (component []int32, sizes []int, err error) {
	var uf unionFind
	uf.reset(n)
	err = src(func(u, v int32, _ float64) error {
		if u < 0 || int(u) >= n || v < 0 || int(v) >= n {
			return fmt.Errorf("edge %d-%d: node out of range [0, %d)", u, v, n)
		}
		uf.union(u, v)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	// Number the components in order of smallest node, reusing the union-find's size array as
	// the map from root to component.
	ids := uf.size
	for i := range ids {
		ids[i] = -1
	}
	component = make([]int32, n)
	for u := 0; u < n; u++ {
		r := uf.find(int32(u))
		if ids[r] < 0 {
			ids[r] = int32(len(sizes))
			sizes = append(sizes, 0)
		}
		component[u] = ids[r]
		sizes[ids[r]]++
	}
	return component, sizes, nil
}
