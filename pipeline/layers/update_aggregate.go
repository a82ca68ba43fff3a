package layers

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/idlist"
)

// reaggregate recomputes LeanRAG's inter-summary relations of every layer from the stored
// hierarchy and the relations of layer 0 (edges), and writes only what changed: pairs that are
// new or whose weight changed (and, described extractively, those with an end written by this
// update: touched); relations of pairs no longer kept are removed. It returns the ends of the relations that changed without an
// end being written.
func (b *Builder) reaggregate(ctx context.Context, layer0 []graph.Edge, touched map[string]bool, opt Options) ([]string, []AggregateStats, error) {
	links, err := b.Store.LayerLinks(ctx, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("read the links of layer 0: %w", err)
	}
	baseIDs := make([]string, 0, 2*len(layer0)+len(links))
	for _, e := range layer0 {
		baseIDs = append(baseIDs, e.Source, e.Target)
	}
	for _, l := range links {
		baseIDs = append(baseIDs, l.Member)
	}
	slices.Sort(baseIDs)
	baseIDs = slices.Compact(baseIDs)
	base, err := idlist.New(baseIDs)
	if err != nil {
		return nil, nil, err
	}
	baseIDs = nil
	edges := make(memEdges, 0, len(layer0))
	for _, e := range layer0 {
		s, _ := base.Search(e.Source)
		t, _ := base.Search(e.Target)
		edges = append(edges, baseEdge{s: int32(min(s, t)), t: int32(max(s, t)), weight: e.Weight})
	}
	ag := newAggregator(base, edges)
	var ends []string
	var stats []AggregateStats
	for layer := 1; len(links) > 0; layer++ {
		var sums []string
		for _, l := range links {
			sums = append(sums, l.Summary)
		}
		slices.Sort(sums)
		sums = slices.Compact(sums)
		next, err := idlist.New(sums)
		if err != nil {
			return nil, nil, err
		}
		lk := make([]link, 0, len(links))
		for _, l := range links {
			m, ok := ag.current.Search(l.Member)
			s, _ := next.Search(l.Summary)
			if ok {
				lk = append(lk, link{member: int32(m), summary: int32(s), weight: l.Weight})
			}
		}
		ag.climb(lk, next)
		st, changedEnds, err := b.reaggregateLayer(ctx, layer, ag, touched, opt)
		if err != nil {
			return nil, nil, err
		}
		stats = append(stats, st)
		ends = append(ends, changedEnds...)
		if links, err = b.Store.LayerLinks(ctx, layer); err != nil {
			return nil, nil, fmt.Errorf("read the links of layer %d: %w", layer, err)
		}
	}
	return ends, stats, nil
}

// reaggregateLayer is aggregate for one layer of a stored hierarchy, writing only what changed.
func (b *Builder) reaggregateLayer(ctx context.Context, layer int, ag *aggregator, touched map[string]bool, opt Options) (AggregateStats, []string, error) {
	hist, err := ag.histogram(ctx)
	if err != nil {
		return AggregateStats{}, nil, err
	}
	st := AggregateStats{Tau: threshold(hist, opt.AggregateK)}
	for _, m := range hist {
		st.Pairs += m
	}
	pairs, err := ag.kept(ctx, st.Tau)
	if err != nil {
		return st, nil, err
	}
	st.Relations = len(pairs)
	stored := map[graph.RelationKey]float64{}
	err = b.Store.EachLayerEdge(ctx, layer, func(e graph.Edge) error {
		stored[graph.RelationKey{Source: e.Source, Target: e.Target}] = e.Weight
		return nil
	})
	if err != nil {
		return st, nil, fmt.Errorf("read the relations of layer %d: %w", layer, err)
	}
	_, extractive := b.Describer.(ExtractiveRelations)
	var ends []string
	var write []keptPair
	for _, p := range pairs {
		w, ok := stored[p.key]
		delete(stored, p.key)
		reweighted := ok && math.Abs(w-p.weight/float64(p.count)) > 1e-9*math.Max(1, math.Abs(w))
		endWritten := touched[p.key.Source] || touched[p.key.Target]
		// A stored pair is described again when the base relations under it changed (their
		// mean weight moves with them), not because an end's summary was reworded: with a
		// model that would be a call for every relation of every summary written again. The
		// extractive description, free and holding the count, is renewed with its ends.
		if ok && !reweighted && !(endWritten && extractive) {
			continue
		}
		write = append(write, p)
		if !endWritten {
			// A pair with a rewritten end changes only what holds that end, which the caller
			// knows changed; a new or reweighted pair changes what holds either end.
			ends = append(ends, p.key.Source, p.key.Target)
		}
	}
	var drop []graph.RelationKey
	for _, k := range slices.SortedFunc(maps.Keys(stored), func(a, b graph.RelationKey) int {
		return cmp.Or(cmp.Compare(a.Source, b.Source), cmp.Compare(a.Target, b.Target))
	}) {
		drop = append(drop, k)
		ends = append(ends, k.Source, k.Target)
	}
	if len(drop) > 0 {
		if err := b.Store.Apply(ctx, graph.Batch{DeleteRelations: drop}); err != nil {
			return st, nil, fmt.Errorf("remove relations of layer %d: %w", layer, err)
		}
	}
	next := &summaries{layerSet: layerSet{layer: layer, ids: ag.current,
		conns: make([]int32, ag.current.Len()), labels: make([]string, ag.current.Len())}}
	for start := 0; start < len(write); start += page {
		if err := b.describe(ctx, layer, ag, next, write[start:min(start+page, len(write))], opt); err != nil {
			return st, nil, err
		}
	}
	return st, ends, nil
}
