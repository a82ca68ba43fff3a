package graphalgo

import "math"

// Leiden's local moving and refinement phases, in the scratch of leiden (leiden.go).

// shuffled fills buf with 0..len(buf)-1 in random order.
func (l *leiden) shuffled(buf []int32) {
	for i := range buf {
		buf[i] = int32(i)
	}
	for i := len(buf) - 1; i > 0; i-- {
		j := l.rng.IntN(i + 1)
		buf[i], buf[j] = buf[j], buf[i]
	}
}

// gather accumulates, in l.touched/l.touchedW, the weight from u to each community of its
// neighbours, as given by comm. With within >= 0 only neighbours v with part[v] == within or
// part[v] < 0 count. The caller must reset l.pos for the touched communities. It returns the
// strength of u, summed from the row it reads anyway when g keeps none.
func (l *leiden) gather(g *Graph, u int32, comm, part []int32, within int32) (strength float64) {
	touched, tw := l.touched[:0], l.touchedW[:0]
	pos := l.pos
	a, b := g.offsets[u], g.offsets[u+1]
	ts, ws := g.targets[a:b], g.weights[a:b]
	strength = 2 * g.SelfLoop(int(u)) // summed as Graph.Strength sums it, in the same pass
	for i, v := range ts {
		w := float64(ws[i])
		strength += w
		if within >= 0 && part[v] != within && part[v] >= 0 {
			continue
		}
		c := comm[v]
		if p := pos[c]; p >= 0 {
			tw[p] += w
			continue
		}
		pos[c] = int32(len(touched))
		touched = append(touched, c)
		tw = append(tw, w)
	}
	l.touched, l.touchedW = touched, tw
	if g.strength != nil {
		strength = g.strength[u]
	}
	return strength
}

// cancelEvery is how many node visits of local moving pass between checks of the context.
const cancelEvery = 1 << 16

// moveNodes runs the fast local moving phase on g starting from part, which it updates in place
// and relabels densely (in order of first node). It returns the number of communities. With
// cons non-nil only neighbours in the node's cons group are considered; a node in group -1 (a
// seeded run's node without a seeded community) considers every neighbour and every node
// considers it. With front non-nil only the nodes it marks are queued at first
// (LeidenOptions.Frontier), and every node that moves is marked in it; a move then queues again
// only the neighbours that may join the moved node's communities (with cons, those of its group
// or of none): a neighbour of another group weighs the same communities as before, and a run
// that queued it would move it wherever the seeded partition is not a local optimum of this
// run's aggregate graphs, far from any change.
func (l *leiden) moveNodes(g *Graph, part, cons []int32, front []bool) int {
	n := g.NumNodes()
	tot, size := l.tot[:n], l.size[:n]
	clear(tot)
	clear(size)
	for u, c := range part {
		tot[c] += g.Strength(int(u))
		size[c]++
	}
	empty := l.empty[:0]
	for c := n - 1; c >= 0; c-- {
		if size[c] == 0 {
			empty = append(empty, int32(c))
		}
	}
	queue, inQ := l.queue[:n], l.inQ[:n]
	l.shuffled(queue)
	head, count := 0, n
	if front != nil {
		count = 0
		for _, u := range queue {
			if front[u] {
				queue[count] = u
				count++
			}
		}
		copy(inQ, front)
	} else {
		for i := range inQ {
			inQ[i] = true
		}
	}
	scale := l.gamma / (2 * g.total)
	pos := l.pos

	for visits := 1; count > 0; visits++ {
		if visits%cancelEvery == 0 && l.ctx.Err() != nil {
			break
		}
		u := queue[head]
		head++
		if head == n {
			head = 0
		}
		count--
		inQ[u] = false

		cu := part[u]
		var ku float64
		if cons == nil {
			ku = l.gather(g, u, part, nil, -1)
		} else {
			ku = l.gather(g, u, part, cons, cons[u])
		}
		tot[cu] -= ku
		size[cu]--
		if size[cu] == 0 {
			tot[cu] = 0 // drop accumulated rounding error
		}
		best := cu
		var wOwn float64
		if p := pos[cu]; p >= 0 {
			wOwn = l.touchedW[p]
		}
		bestGain := wOwn - scale*ku*tot[cu]
		kScaled := scale * ku
		for i, c := range l.touched {
			if gain := l.touchedW[i] - kScaled*tot[c]; gain > bestGain {
				best, bestGain = c, gain
			}
			pos[c] = -1
		}
		if bestGain < 0 && size[cu] > 0 {
			// Every community, including the node's own, costs more than it brings: start a new
			// one, whose gain is 0.
			best = empty[len(empty)-1]
			empty = empty[:len(empty)-1]
		}
		tot[best] += ku
		size[best]++
		if best == cu {
			continue
		}
		if size[cu] == 0 {
			empty = append(empty, cu)
		}
		part[u] = best
		if front != nil {
			front[u] = true
		}
		a, b := g.offsets[u], g.offsets[u+1]
		for _, v := range g.targets[a:b] {
			if front != nil && cons != nil && cons[u] >= 0 && cons[v] >= 0 && cons[v] != cons[u] {
				// v may not join u's communities, so the move leaves its choice as it was.
				continue
			}
			if !inQ[v] && part[v] != best {
				inQ[v] = true
				tail := head + count
				if tail >= n {
					tail -= n
				}
				queue[tail] = v
				count++
			}
		}
	}
	l.empty = empty
	return l.relabel(part, n)
}

// relabel renumbers the ids in part (all in [0, bound)) densely in order of first appearance and
// returns how many there are.
func (l *leiden) relabel(part []int32, bound int) int {
	ids := l.queue[:bound] // both callers are done with their queue when they relabel
	for i := range ids {
		ids[i] = -1
	}
	k := int32(0)
	for u, c := range part {
		if ids[c] < 0 {
			ids[c] = k
			k++
		}
		part[u] = ids[c]
	}
	return int(k)
}

// refine computes the refined partition of g within the nc communities of part. Sub-communities
// are identified by their founding node; the result is relabelled densely.
func (l *leiden) refine(g *Graph, part []int32, nc int) ([]int32, int) {
	n := g.NumNodes()
	scale := l.gamma / (2 * g.total)
	if cap(l.ctot) < nc {
		// A quarter to spare: the iteration that keeps its steps starts from singletons as the
		// first did and may find a few more communities, and a new array then would come on
		// top of the plateau of the iterations before.
		l.ctot = make([]float64, nc, nc+nc/4)
	}
	l.ctot = l.ctot[:nc]
	ctot := l.ctot
	clear(ctot)
	l.ref = grow(l.ref, n)
	ref := l.ref
	cw, ext, single := l.cw[:n], l.ext[:n], l.single[:n]
	for u := 0; u < n; u++ {
		ref[u] = int32(u)
		single[u] = true
		// The strength is summed (when g keeps none) in the pass over the row that sums the
		// weight inside the community, as Graph.Strength sums it.
		str, e := 2*g.SelfLoop(u), 0.0
		a, b := g.offsets[u], g.offsets[u+1]
		ws := g.weights[a:b]
		for i, v := range g.targets[a:b] {
			w := float64(ws[i])
			str += w
			if part[v] == part[u] {
				e += w
			}
		}
		if g.strength != nil {
			str = g.strength[u]
		}
		cw[u], ext[u] = str, e
		ctot[part[u]] += str
	}
	order := l.queue[:n]
	l.shuffled(order)
	pos := l.pos
	for _, v := range order {
		if !single[v] {
			continue
		}
		cv := part[v]
		kv := cw[v] // its strength: v is still alone
		total := ctot[cv]
		extV := ext[v]
		if extV < scale*kv*(total-kv) {
			continue // v is not well connected to its community
		}
		cw[v] = 0
		l.gather(g, v, ref, part, cv)

		// Candidates: v's own (now empty) sub-community with gain 0, and every well-connected
		// sub-community with a non-negative gain.
		gains := l.gains[:0]
		maxGain := 0.0
		for i, c := range l.touched {
			gain := math.NaN()
			if c != v && ext[c] >= scale*cw[c]*(total-cw[c]) {
				if d := l.touchedW[i] - scale*kv*cw[c]; d >= 0 {
					gain = d
					maxGain = max(maxGain, d)
				}
			}
			gains = append(gains, gain)
		}
		// Sample with probability proportional to exp(gain/theta); shifting by the largest gain
		// keeps exp from overflowing without changing the distribution.
		inv := 1 / l.theta
		sum := math.Exp(-maxGain * inv)
		for i, d := range gains {
			if !math.IsNaN(d) {
				e := math.Exp((d - maxGain) * inv)
				gains[i] = e
				sum += e
			}
		}
		chosen, wChosen := v, 0.0
		r := l.rng.Float64() * sum
		r -= math.Exp(-maxGain * inv)
		if r >= 0 {
			last := -1
			for i, e := range gains {
				if math.IsNaN(e) {
					continue
				}
				last = i
				if r < e {
					break
				}
				r -= e
			}
			// last is the sampled index; rounding may carry r past the final candidate, in
			// which case the final candidate is taken.
			if last >= 0 {
				chosen, wChosen = l.touched[last], l.touchedW[last]
			}
		}
		for _, c := range l.touched {
			pos[c] = -1
		}
		l.gains = gains

		if chosen == v {
			cw[v] = kv
			continue
		}
		ref[v] = chosen
		cw[chosen] += kv
		ext[chosen] += extV - 2*wChosen
		single[chosen] = false
		single[v] = false
	}
	nr := l.relabel(ref, n)
	return ref, nr
}
