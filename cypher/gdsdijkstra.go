package cypher

import "slices"

// gdsGraph is a copy of the entity projection (gds_project.cypher) as GDS holds it: nodes
// numbered in the order the projection's rows first name them (each row's source, then its
// target), each relationship in both directions, and every node's relationships in ascending
// order of the other end's number, as GDS's compressed adjacency lists keep them.
type gdsGraph struct {
	ids     []string         // entity id by node number
	number  map[string]int32 // node number by entity id
	offsets []int32          // node u's neighbours are targets[offsets[u]:offsets[u+1]]
	targets []int32
}

// gdsGraphBuilder assembles a gdsGraph from the projection's rows, in the projection's order.
type gdsGraphBuilder struct {
	g     gdsGraph
	edges [][2]int32
}

func newGDSGraphBuilder() *gdsGraphBuilder {
	return &gdsGraphBuilder{g: gdsGraph{number: map[string]int32{}}}
}

func (b *gdsGraphBuilder) node(id string) int32 {
	if n, ok := b.g.number[id]; ok {
		return n
	}
	n := int32(len(b.g.ids))
	b.g.ids = append(b.g.ids, id)
	b.g.number[id] = n
	return n
}

// row adds one row of the projection: an entity, and the entity its relationship leads to
// ("" for an entity without relationships).
func (b *gdsGraphBuilder) row(source, target string) {
	s := b.node(source)
	if target == "" {
		return
	}
	t := b.node(target)
	b.edges = append(b.edges, [2]int32{s, t}, [2]int32{t, s})
}

// build sorts the adjacency lists by counting the relationships per node, then placing them in
// order of the other end: a stable counting sort on both keys.
func (b *gdsGraphBuilder) build() *gdsGraph {
	g := &b.g
	n := len(g.ids)
	g.offsets = make([]int32, n+1)
	byTarget := make([]int32, n+1)
	for _, e := range b.edges {
		g.offsets[e[0]+1]++
		byTarget[e[1]+1]++
	}
	for i := range n {
		g.offsets[i+1] += g.offsets[i]
		byTarget[i+1] += byTarget[i]
	}
	sorted := make([][2]int32, len(b.edges))
	for _, e := range b.edges {
		sorted[byTarget[e[1]]] = e
		byTarget[e[1]]++
	}
	g.targets = make([]int32, len(b.edges))
	next := append([]int32(nil), g.offsets[:n]...)
	for _, e := range sorted {
		g.targets[next[e[0]]] = e[1]
		next[e[0]]++
	}
	b.edges = nil
	return g
}

// gdsDijkstra runs gds.shortestPath.dijkstra as GDS 2.13 runs it on an unweighted projection,
// down to the order in which it takes nodes of equal distance from its priority queue: among
// several shortest paths GDS returns the one its traversal met first, and a copy of the
// projection answers a resident store's path requests only if it picks the same. The queue is
// a binary heap (1-based array, a position per node) whose sift-up and sift-down move a node
// only past strictly greater costs; a node's predecessor is the node whose expansion first put
// it into the queue, since with unit costs a later one never offers a strictly shorter path.
type gdsDijkstra struct {
	g       *gdsGraph
	heap    []int32   // heap[1..size]
	pos     []int32   // pos[u]: u's place in heap, 0 when not queued (valid when stamp[u] == gen)
	cost    []float64 // cost[u]: u's distance from the source once queued
	pred    []int32
	visited []bool
	stamp   []uint32
	gen     uint32
	size    int32
}

func newGDSDijkstra(g *gdsGraph) *gdsDijkstra {
	n := len(g.ids)
	return &gdsDijkstra{
		g: g, heap: make([]int32, n+1), pos: make([]int32, n), cost: make([]float64, n),
		pred: make([]int32, n), visited: make([]bool, n), stamp: make([]uint32, n),
	}
}

// touch resets u's state for this search the first time the search meets u.
func (d *gdsDijkstra) touch(u int32) {
	if d.stamp[u] != d.gen {
		d.stamp[u], d.pos[u], d.visited[u], d.pred[u] = d.gen, 0, false, -1
	}
}

func (d *gdsDijkstra) place(i, u int32) { d.heap[i], d.pos[u] = u, i }

func (d *gdsDijkstra) less(a, b int32) bool { return d.cost[a] < d.cost[b] }

func (d *gdsDijkstra) add(u int32, cost float64) {
	d.cost[u] = cost
	d.size++
	d.place(d.size, u)
	d.up(d.size)
}

func (d *gdsDijkstra) up(i int32) bool {
	start, u := i, d.heap[i]
	for j := i >> 1; j > 0 && d.less(u, d.heap[j]); j >>= 1 {
		d.place(i, d.heap[j])
		i = j
	}
	d.place(i, u)
	return i != start
}

func (d *gdsDijkstra) down(i int32) {
	u := d.heap[i]
	j := i << 1
	if k := j + 1; k <= d.size && d.less(d.heap[k], d.heap[j]) {
		j = k
	}
	for j <= d.size && d.less(d.heap[j], u) {
		d.place(i, d.heap[j])
		i = j
		j = i << 1
		if k := j + 1; k <= d.size && d.less(d.heap[k], d.heap[j]) {
			j = k
		}
	}
	d.place(i, u)
}

func (d *gdsDijkstra) pop() int32 {
	u := d.heap[1]
	d.place(1, d.heap[d.size])
	d.size--
	d.down(1)
	d.pos[u] = 0
	return u
}

// paths returns the path from source to each of targets that lies within maxHops hops, as
// node numbers from source to target. With unit costs a node's predecessor is fixed when it
// enters the queue (a node taken later is no closer), so the search ends once every target has
// entered it, or once the nearest queued node is maxHops away, since expanding that one only
// queues nodes farther than any path asked for. Neither changes a path GDS would return.
func (d *gdsDijkstra) paths(source int32, targets []int32, maxHops int) map[int32][]int32 {
	d.gen++
	if d.gen == 0 {
		clear(d.stamp)
		d.gen = 1
	}
	d.size = 0
	want := make(map[int32]bool, len(targets))
	for _, t := range targets {
		want[t] = true
	}
	reached := 0
	d.touch(source)
	d.add(source, 0)
	for d.size > 0 && reached < len(want) && d.cost[d.heap[1]] < float64(maxHops) {
		u := d.pop()
		d.visited[u] = true
		for _, v := range d.g.targets[d.g.offsets[u]:d.g.offsets[u+1]] {
			d.touch(v)
			if d.visited[v] {
				continue
			}
			c := d.cost[u] + 1
			switch {
			case d.pos[v] == 0:
				d.add(v, c)
				d.pred[v] = u
				if want[v] {
					reached++
				}
			case c < d.cost[v]: // never with unit costs; kept as GDS relaxes
				d.cost[v] = c
				if p := d.pos[v]; !d.up(p) && p < d.size {
					d.down(p)
				}
				d.pred[v] = u
			}
		}
	}
	out := map[int32][]int32{}
	for t := range want {
		if d.stamp[t] != d.gen || t == source {
			continue
		}
		var path []int32
		for v := t; v != source; v = d.pred[v] {
			path = append(path, v)
		}
		path = append(path, source)
		slices.Reverse(path)
		out[t] = path
	}
	return out
}
