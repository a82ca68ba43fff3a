package main

import (
	"context"
	"fmt"
	"math"

	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/graphalgo"
)

// snapshot is everything compare reads from one store, through the graph contract only
// (graph.Reader and graph.Searcher).
type snapshot struct {
	stats     graph.Stats
	entities  map[string]graph.Entity // every layer
	relations map[graph.RelationKey]graph.Relation
	links     map[graph.RelationKey]float64 // SUMMARIZED_BY weight, keyed {member, summary}
	// levels[l] maps every entity in a community of level l to that community's id.
	levels      []map[string]string
	communities []int // number of communities per level
}

// load reads a snapshot. The contract has no call that lists relationships, so RELATED comes
// from ExpandLocal with every entity as a seed (all relations are then inside relations), and
// SUMMARIZED_BY from one-hop ShortestPaths between each entity and the summaries of the layer
// above it (summaries have no RELATED relationships, so a one-step path is the link). Both are
// checked against Stats.
func load(ctx context.Context, s graph.ReadSearcher) (*snapshot, error) {
	st, err := s.Stats(ctx)
	if err != nil {
		return nil, fmt.Errorf("stats: %w", err)
	}
	snap := &snapshot{stats: st, entities: map[string]graph.Entity{}}
	var byLayer [][]graph.Entity
	for layer := 0; layer == 0 || len(byLayer[layer-1]) > 0; layer++ {
		es, err := s.EntitiesByLayer(ctx, layer)
		if err != nil {
			return nil, fmt.Errorf("entities of layer %d: %w", layer, err)
		}
		byLayer = append(byLayer, es)
		for _, e := range es {
			snap.entities[e.ID] = e
		}
	}
	if err := snap.loadRelations(ctx, s); err != nil {
		return nil, err
	}
	if err := snap.loadLinks(ctx, s, byLayer); err != nil {
		return nil, err
	}
	if err := snap.loadCommunities(ctx, s); err != nil {
		return nil, err
	}
	return snap, nil
}

func (snap *snapshot) loadRelations(ctx context.Context, s graph.Searcher) error {
	want := snap.stats.Relationships["RELATED"]
	ids := make([]string, 0, len(snap.entities))
	for id := range snap.entities {
		ids = append(ids, id)
	}
	snap.relations = map[graph.RelationKey]graph.Relation{}
	if len(ids) == 0 {
		return nil
	}
	// One more than Stats counts, so that a store returning more than it counts shows.
	lc, err := s.ExpandLocal(ctx, ids, graph.LocalOptions{TopInsideRels: int(want) + 1})
	if err != nil {
		return fmt.Errorf("read RELATED through ExpandLocal: %w", err)
	}
	for _, r := range lc.InsideRelations {
		snap.relations[r.Key()] = r
	}
	if int64(len(snap.relations)) != want {
		return fmt.Errorf("ExpandLocal over all %d entities gave %d relations, Stats counts %d RELATED",
			len(ids), len(snap.relations), want)
	}
	return nil
}

func (snap *snapshot) loadLinks(ctx context.Context, s graph.Searcher, byLayer [][]graph.Entity) error {
	snap.links = map[graph.RelationKey]float64{}
	for layer := 1; layer < len(byLayer); layer++ {
		var reqs []graph.PathRequest
		for _, m := range byLayer[layer-1] {
			for _, sum := range byLayer[layer] {
				reqs = append(reqs, graph.PathRequest{Source: m.ID, Target: sum.ID})
			}
		}
		if len(reqs) == 0 {
			continue
		}
		paths, err := s.ShortestPaths(ctx, reqs, 1)
		if err != nil {
			return fmt.Errorf("read SUMMARIZED_BY of layer %d through ShortestPaths: %w", layer, err)
		}
		for _, p := range paths {
			if len(p.Steps) != 1 || p.Steps[0].Type != "SUMMARIZED_BY" {
				return fmt.Errorf("one-hop path %s -> %s is not one SUMMARIZED_BY step: %+v", p.Source, p.Target, p.Steps)
			}
			snap.links[graph.RelationKey{Source: p.Source, Target: p.Target}] = p.Steps[0].Weight
		}
	}
	if want := snap.stats.Relationships["SUMMARIZED_BY"]; int64(len(snap.links)) != want {
		return fmt.Errorf("one-hop paths found %d SUMMARIZED_BY links, Stats counts %d", len(snap.links), want)
	}
	return nil
}

func (snap *snapshot) loadCommunities(ctx context.Context, s graph.Reader) error {
	all, err := s.CommunitiesByLevel(ctx, -1)
	if err != nil {
		return fmt.Errorf("communities: %w", err)
	}
	for _, c := range all {
		for len(snap.levels) <= c.Level {
			snap.levels = append(snap.levels, map[string]string{})
			snap.communities = append(snap.communities, 0)
		}
		snap.communities[c.Level]++
		m, err := s.CommunityMembers(ctx, c.ID, 0)
		if err != nil {
			return fmt.Errorf("members of community %s: %w", c.ID, err)
		}
		for _, e := range m.Entities {
			if prev, ok := snap.levels[c.Level][e.ID]; ok {
				return fmt.Errorf("entity %q is in communities %s and %s of level %d", e.ID, prev, c.ID, c.Level)
			}
			snap.levels[c.Level][e.ID] = c.ID
		}
	}
	return nil
}

// entityGraph is the weighted undirected graph communities are computed on: every entity of
// every layer, RELATED and SUMMARIZED_BY. Nodes are numbered in the order of ids.
func (snap *snapshot) entityGraph(ids []string) *graphalgo.Graph {
	index := make(map[string]int, len(ids))
	for i, id := range ids {
		index[id] = i
	}
	var edges []graphalgo.Edge
	add := func(a, b string, w float64) {
		u, okU := index[a]
		v, okV := index[b]
		if okU && okV {
			edges = append(edges, graphalgo.Edge{U: u, V: v, W: edgeWeight(w)})
		}
	}
	for k, r := range snap.relations {
		add(k.Source, k.Target, r.Weight)
	}
	for k, w := range snap.links {
		add(k.Source, k.Target, w)
	}
	return graphalgo.NewGraph(len(ids), edges)
}

// edgeWeight is the weight of an edge in the modularity: a missing, non-positive or infinite
// weight counts as 1, as in the embedded store's algorithms.
func edgeWeight(w float64) float64 {
	if !(w > 0) || math.IsInf(w, 1) {
		return 1
	}
	return w
}

// membership returns each id's community at one level as integers; an entity in no community
// of the level gets a community of its own. It also returns how many entities had none.
func (snap *snapshot) membership(level int, ids []string) ([]int, int) {
	labels := map[string]int{}
	out := make([]int, len(ids))
	missing := 0
	for i, id := range ids {
		c, ok := "", false
		if level < len(snap.levels) {
			c, ok = snap.levels[level][id]
		}
		if !ok {
			missing++
			c = "none:" + id
		}
		l, seen := labels[c]
		if !seen {
			l = len(labels)
			labels[c] = l
		}
		out[i] = l
	}
	return out, missing
}
