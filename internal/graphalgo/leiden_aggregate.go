package graphalgo

// Leiden's aggregation of the refined partition into the next level's graph, and the
// modularity of a partition, in the scratch of leiden (leiden.go).

// aggregate builds, in dst's storage, the graph whose nodes are the nr groups of ref: edge
// weights between groups are summed and the weight inside a group becomes its self-loop, so
// modularity is preserved.
func (l *leiden) aggregate(g *Graph, ref []int32, nr int, dst *Graph) *Graph {
	n := g.NumNodes()
	// The groups' members, by a counting sort, in the scratch of local moving (size, empty and
	// queue), which is done with it until the next level: nr < n, since something merged.
	start := l.size[:nr+1]
	clear(start)
	for _, r := range ref {
		start[r+1]++
	}
	for i := 1; i <= nr; i++ {
		start[i] += start[i-1]
	}
	members := l.queue[:n]
	next := l.empty[:nr]
	copy(next, start[:nr])
	for u, r := range ref {
		members[next[r]] = int32(u)
		next[r]++
	}

	agg := dst
	agg.offsets = grow(agg.offsets, nr+1)
	agg.self = grow(agg.self, nr)
	agg.strength = grow(agg.strength, nr)
	agg.total = g.total
	pos := l.pos
	// A first pass counts the distinct neighbouring groups of every group, so that the
	// adjacency is allocated at its size: the first aggregate of a large graph is often far
	// smaller than the half of its input that an estimate would reserve.
	h := 0
	for c := 0; c < nr; c++ {
		for _, u := range members[start[c]:start[c+1]] {
			a, b := g.offsets[u], g.offsets[u+1]
			for _, v := range g.targets[a:b] {
				if d := ref[v]; d != int32(c) && pos[d] < 0 {
					pos[d] = int32(h)
					h++
				}
			}
		}
		for _, u := range members[start[c]:start[c+1]] {
			a, b := g.offsets[u], g.offsets[u+1]
			for _, v := range g.targets[a:b] {
				pos[ref[v]] = -1
			}
		}
	}
	if cap(agg.targets) < h && h >= 1<<20 {
		// A later iteration's aggregate outgrew the arrays of the earlier ones: those go, and
		// are released, before the new ones are made (the two together were the
		// peak of the communities stage of the 50 MiB adversarial document, 20 MB over it).
		agg.targets, agg.weights = nil, nil
		l.release()
	}
	targets := grow(agg.targets, h)[:0]
	weights := grow(agg.weights, h)
	acc := l.touchedW // a row's weights, summed in float64 and rounded once
	for c := 0; c < nr; c++ {
		agg.offsets[c] = uint32(len(targets))
		rowStart := len(targets)
		acc = acc[:0]
		var self, str float64
		for _, u := range members[start[c]:start[c+1]] {
			self += g.SelfLoop(int(u))
			str += g.Strength(int(u))
			a, b := g.offsets[u], g.offsets[u+1]
			ws := g.weights[a:b]
			for i, v := range g.targets[a:b] {
				d := ref[v]
				if d == int32(c) {
					self += float64(ws[i]) / 2 // seen once from each end
					continue
				}
				if p := pos[d]; p >= 0 {
					acc[int(p)-rowStart] += float64(ws[i])
					continue
				}
				pos[d] = int32(len(targets))
				targets = append(targets, d)
				acc = append(acc, float64(ws[i]))
			}
		}
		for i, d := range targets[rowStart:] {
			pos[d] = -1
			weights[rowStart+i] = float32(acc[i])
		}
		agg.self[c] = self
		agg.strength[c] = str
	}
	agg.offsets[nr] = uint32(len(targets))
	agg.targets, agg.weights = targets, weights
	l.touchedW = acc
	return agg
}

// modularityDense is Modularity for a partition with ids already dense in [0, nc).
func modularityDense(g *Graph, part []int32, nc int, gamma float64) float64 {
	return modularityInto(g, part, nil, nc, gamma, make([]float64, nc), make([]float64, nc))
}

// modularity is modularityDense in the refinement's scratch, which is free outside refine, of
// part read through member when member is not nil (see modularityInto).
func (l *leiden) modularity(g *Graph, part, member []int32, nc int) float64 {
	return modularityInto(g, part, member, nc, l.gamma, l.cw[:nc], l.ext[:nc])
}

// modularityInto is modularityDense accumulating in in and tot, nc long each. With member not
// nil, node u of g is in community part[member[u]] (a partition of an aggregate graph, read on
// the input's nodes and edges: the same sums in the same order as its mapped copy would give).
func modularityInto(g *Graph, part, member []int32, nc int, gamma float64, in, tot []float64) float64 {
	if g.total <= 0 {
		return 0
	}
	clear(in)
	clear(tot)
	comm := func(u int32) int32 {
		if member != nil {
			return part[member[u]]
		}
		return part[u]
	}
	for u := range int32(g.NumNodes()) {
		c := comm(u)
		tot[c] += g.Strength(int(u))
		in[c] += 2 * g.SelfLoop(int(u))
		a, b := g.offsets[u], g.offsets[u+1]
		ws := g.weights[a:b]
		for i, v := range g.targets[a:b] {
			if comm(v) == c {
				in[c] += float64(ws[i])
			}
		}
	}
	twoM := 2 * g.total
	var q float64
	for c := range in {
		f := tot[c] / twoM
		q += in[c]/twoM - gamma*f*f
	}
	return q
}
