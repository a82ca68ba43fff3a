package graphalgo

import "slices"

// From the steps of Leiden's iterations to the nested levels it returns (leiden.finish).

// levelStep is one level of an iteration on the graph that level starts from, the aggregate of
// the levels before it: the community of each of that graph's nodes, and the node of the next
// level's graph that each becomes (nil at the last level). A level mapped to the input nodes
// takes 4 bytes a node of the input; a step takes 8 bytes a node of its own graph, which after
// the first level is a fraction of the input's (a quarter or less on the graphs of documents).
type levelStep struct{ part, ref []int32 }

// expandLevels maps every step to the n input nodes, releasing each step once it is mapped.
// member is scratch of n entries.
func expandLevels(steps []levelStep, member []int32) [][]int32 {
	for i := range member {
		member[i] = int32(i)
	}
	raw := make([][]int32, len(steps))
	for k, st := range steps {
		lv := make([]int32, len(member))
		for i, m := range member {
			lv[i] = st.part[m]
		}
		if st.ref != nil {
			for i, m := range member {
				member[i] = st.ref[m]
			}
		}
		raw[k], steps[k] = lv, levelStep{}
	}
	return raw
}

// nestLevels turns the raw per-level partitions into a strict hierarchy, in place: each level is
// intersected with the (already nested) next one, every community is split into its connected
// components, and consecutive duplicates are dropped unless keepEqual. Splitting keeps or raises modularity
// (separating a piece from a community it shares no edges with only removes a negative term);
// the intersection changes a level only where Leiden moved a refined sub-community away in the
// next level, which is rare and costs little. first and id are scratch of one entry per node of
// g, and uf's storage is reused.
func nestLevels(g *Graph, raw [][]int32, first, id []int32, uf *unionFind, keepEqual bool) [][]int32 {
	for i := len(raw) - 2; i >= 0; i-- {
		meet(raw[i], raw[i+1], first, id)
	}
	for _, lv := range raw {
		splitDisconnected(g, lv, uf, id)
	}
	if keepEqual {
		return raw
	}
	dedup := raw[:1]
	for _, lv := range raw[1:] {
		if !slices.Equal(lv, dedup[len(dedup)-1]) {
			dedup = append(dedup, lv)
		}
	}
	return dedup
}

// meet replaces a with the partition whose communities are the non-empty intersections of the
// communities of a and b, numbered in order of first node. first and id are scratch of at least
// one entry per community of a. Where a is nested in b, as it nearly always is, each community of
// a meets one of b and is numbered through them; the rare pairs beyond a community's first are
// numbered through a map.
func meet(a, b, first, id []int32) {
	na := int(slices.Max(a)) + 1
	first, id = first[:na], id[:na]
	for i := range first {
		first[i] = -1
	}
	var more map[uint64]int32
	k := int32(0)
	for i, x := range a {
		y := b[i]
		switch {
		case first[x] < 0:
			first[x], id[x] = y, k
			a[i] = k
			k++
		case first[x] == y:
			a[i] = id[x]
		default:
			key := uint64(uint32(x))<<32 | uint64(uint32(y))
			c, ok := more[key]
			if !ok {
				if more == nil {
					more = make(map[uint64]int32)
				}
				c = k
				more[key] = c
				k++
			}
			a[i] = c
		}
	}
}

// splitDisconnected splits every community of part into its connected components and numbers
// the result in order of first node, in place. ids is scratch of one entry per node.
func splitDisconnected(g *Graph, part []int32, uf *unionFind, ids []int32) {
	n := g.NumNodes()
	uf.reset(n)
	for u := 0; u < n; u++ {
		a, b := g.offsets[u], g.offsets[u+1]
		for _, v := range g.targets[a:b] {
			if int(v) > u && part[v] == part[u] {
				uf.union(int32(u), v)
			}
		}
	}
	ids = ids[:n]
	for i := range ids {
		ids[i] = -1
	}
	k := int32(0)
	for u := 0; u < n; u++ {
		r := uf.find(int32(u))
		if ids[r] < 0 {
			ids[r] = k
			k++
		}
		part[u] = ids[r]
	}
}
