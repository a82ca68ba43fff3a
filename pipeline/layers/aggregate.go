package layers

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/llm"
	"github.com/stratarag/strata/internal/llmtask"
	"github.com/stratarag/strata/prompts"
)

// LeanRAG's aggregation: after a summary layer is built, the base (layer-0) relations that join
// the members of two of its summaries are counted, and each pair of summaries joined by more of
// them than the layer's threshold τ gets a RELATED relationship of its own. Without it, summary
// entities are islands linked to nothing but their members and their own summary, and a path
// between two topics must go down to the extracted entities and up again.
//
// The relations are ordinary RELATED relationships (between two summaries of one layer), so
// components, Leiden, bridge paths, lca retrieval and Neo4j Browser see them like any other;
// ClearSummaries removes them with the summaries, so a rebuild never keeps stale ones. Their
// weight is the mean weight of the base relations they stand for, the scale of a base relation,
// so that a summary pair weighs in Leiden about as much as one strong base relation rather than
// as much as all of its relations together (the count is in the description).

// SummaryRelation is an inter-summary relation to describe: two summaries of one layer, the
// number of base relations between their members, and the descriptions of the strongest of
// those (by weight, then key).
type SummaryRelation struct {
	Source, Target Member
	Count          int
	Evidence       []string
}

// RelationDescriber writes the description of an inter-summary relation.
type RelationDescriber interface {
	DescribeRelation(ctx context.Context, r SummaryRelation) (string, error)
}

// Limits of the aggregation.
const (
	evidenceRelations = 5   // descriptions of base relations given per inter-summary relation
	evidenceWords     = 120 // words of an extractive inter-summary description at most
)

// ExtractiveRelations describes an inter-summary relation without a model: the count and the
// concatenated descriptions of its strongest base relations, capped at evidenceWords words.
type ExtractiveRelations struct{}

// DescribeRelation implements RelationDescriber.
func (ExtractiveRelations) DescribeRelation(_ context.Context, r SummaryRelation) (string, error) {
	desc := fmt.Sprintf("%d relations join their members.", r.Count)
	words := 0
	for _, e := range r.Evidence {
		f := strings.Fields(e)
		if words+len(f) > evidenceWords {
			f = f[:evidenceWords-words]
		}
		if len(f) == 0 {
			break
		}
		desc += " " + strings.Join(f, " ")
		words += len(f)
		if words == evidenceWords {
			desc += " …"
			break
		}
	}
	return desc, nil
}

// LLMRelations describes an inter-summary relation with a model (prompt summary_relation, stage
// llm.StageAggregate). An unreadable answer gets the extractive description; API errors fail.
type LLMRelations struct {
	Chat    llm.Chatter
	Prompts *prompts.Set
}

// DescribeRelation implements RelationDescriber.
func (x *LLMRelations) DescribeRelation(ctx context.Context, r SummaryRelation) (string, error) {
	d, err := llmtask.SummaryRelation(ctx, x.Chat, x.Prompts, r.Source.Name, r.Source.Description, r.Target.Name, r.Target.Description, r.Count, r.Evidence)
	if errors.Is(err, prompts.ErrUnreadable) {
		return ExtractiveRelations{}.DescribeRelation(ctx, r)
	}
	return d, err
}

// AggregateK is the default of Options.AggregateK.
const AggregateK = 1.0

// minAggregateCount is the least number of base relations an inter-summary relation stands for,
// whatever τ says: a single relation between two clusters is what the base graph already shows.
const minAggregateCount = 2

// Threshold is τ of a layer: the mean plus k standard deviations of the number of base relations
// between the pairs of summaries joined by at least one, and at least minAggregateCount. Pair
// counts are heavy-tailed (most pairs share one or two relations, a few share dozens), so the
// rule keeps the pairs that stand out of their own layer whatever its size or density.
func Threshold(counts []int, k float64) float64 {
	if len(counts) == 0 {
		return minAggregateCount
	}
	var sum, sq float64
	for _, c := range counts {
		sum += float64(c)
	}
	mean := sum / float64(len(counts))
	for _, c := range counts {
		sq += (float64(c) - mean) * (float64(c) - mean)
	}
	return max(minAggregateCount, mean+k*math.Sqrt(sq/float64(len(counts))))
}

// pairCount is what the aggregation learns about one pair of summaries.
type pairCount struct {
	count    int
	weight   float64    // sum of the base relations' weights
	evidence []baseEdge // the strongest base relations, at most evidenceRelations
}

// baseEdge is a base relation between the base entities of indexes s < t (the indexes of their
// ids in ascending order, so that indexes compare as the ids do).
type baseEdge struct {
	s, t   int32
	weight float64
}

// aggregator tracks, for every base entity, its ancestors in the layer being built, and counts
// the base relations between pairs of them. Entities are numbered (base entities by id, those
// of the current layer in its order) so that a layer of millions of entities and relations is
// held as a few integers each rather than as their ids.
type aggregator struct {
	base  []string // the base entities' ids, ascending: base[i] is entity i
	edges []baseEdge
	// ancestors holds, for every base entity, its entities in the current layer (indexes into
	// current; at layer 0 itself).
	ancestors [][]int32
	current   []string // the current layer's ids
}

// newAggregator numbers the base entities (base must be in ascending id order, as
// baseMembers reads them) and keeps the edges between two of them.
func newAggregator(edges []graph.Edge, base []Member) (*aggregator, error) {
	a := &aggregator{base: make([]string, len(base)), ancestors: make([][]int32, len(base))}
	for i, m := range base {
		if i > 0 && m.ID <= base[i-1].ID {
			return nil, fmt.Errorf("aggregate: base entities out of order at %s", m.ID)
		}
		a.base[i] = m.ID
		a.ancestors[i] = []int32{int32(i)}
	}
	a.current = a.base
	a.edges = make([]baseEdge, 0, len(edges))
	for _, e := range edges {
		s, okS := slices.BinarySearch(a.base, e.Source)
		t, okT := slices.BinarySearch(a.base, e.Target)
		if !okS || !okT {
			continue // an end without an embedding: in no cluster, so between no summaries
		}
		if s > t {
			s, t = t, s
		}
		a.edges = append(a.edges, baseEdge{s: int32(s), t: int32(t), weight: e.Weight})
	}
	return a, nil
}

// climb moves the ancestors one layer up along the layer's summary links to summaries.
func (a *aggregator) climb(links []graph.SummaryLink, summaries []Member) {
	below := make(map[string]int32, len(a.current))
	for i, id := range a.current {
		below[id] = int32(i)
	}
	above := make(map[string]int32, len(summaries))
	next := make([]string, len(summaries))
	for i, s := range summaries {
		above[s.ID] = int32(i)
		next[i] = s.ID
	}
	parents := make([][]int32, len(a.current))
	for _, l := range links {
		m, okM := below[l.Member]
		p, okP := above[l.Summary]
		if okM && okP {
			parents[m] = append(parents[m], p)
		}
	}
	for i, prev := range a.ancestors {
		var up []int32
		for _, b := range prev {
			for _, p := range parents[b] {
				if !slices.Contains(up, p) {
					up = append(up, p)
				}
			}
		}
		slices.Sort(up)
		a.ancestors[i] = up
	}
	a.current = next
}

// occurrence is one base relation (an index into aggregator.edges) counted for the pair of
// current-layer entities x < y.
type occurrence struct{ x, y, edge int32 }

// count lists, for every base relation, the pairs of distinct current-layer entities above its
// two ends (once each: a relation counts once for each pair of distinct ancestors of its ends),
// sorted by pair, then relation; and the number of relations of each pair, ascending. A flat,
// sorted list of a dozen bytes per occurrence rather than a map of every pair: on a large layer
// most pairs are joined by one relation and stay below τ, and only the pairs kept need more.
func (a *aggregator) count() ([]occurrence, []int) {
	var occs []occurrence
	for i, e := range a.edges {
		start := len(occs)
		for _, x := range a.ancestors[e.s] {
			for _, y := range a.ancestors[e.t] {
				if x == y {
					continue
				}
				o := occurrence{min(x, y), max(x, y), int32(i)}
				if !slices.Contains(occs[start:], o) {
					occs = append(occs, o)
				}
			}
		}
	}
	slices.SortFunc(occs, func(a, b occurrence) int {
		return cmp.Or(cmp.Compare(a.x, b.x), cmp.Compare(a.y, b.y), cmp.Compare(a.edge, b.edge))
	})
	var counts []int
	eachPair(occs, func(run []occurrence) { counts = append(counts, len(run)) })
	slices.Sort(counts) // a fixed order of the sums, so τ is the same number on every run
	return occs, counts
}

// eachPair calls fn with every run of occurrences of one pair.
func eachPair(occs []occurrence, fn func([]occurrence)) {
	for i := 0; i < len(occs); {
		j := i + 1
		for j < len(occs) && occs[j].x == occs[i].x && occs[j].y == occs[i].y {
			j++
		}
		fn(occs[i:j])
		i = j
	}
}

// kept returns the pairs of occs (as count sorted them) joined by at least tau relations: their
// count, the sum of the relations' weights in relation order, and the strongest relations.
func (a *aggregator) kept(occs []occurrence, tau float64) map[graph.RelationKey]*pairCount {
	pairs := map[graph.RelationKey]*pairCount{}
	eachPair(occs, func(run []occurrence) {
		if float64(len(run)) < tau {
			return
		}
		p := &pairCount{}
		for _, o := range run {
			e := a.edges[o.edge]
			p.count++
			p.weight += e.weight
			p.evidence = strongest(p.evidence, e)
		}
		pairs[graph.NewRelationKey(a.current[run[0].x], a.current[run[0].y])] = p
	})
	return pairs
}

// strongest inserts e into the list of the strongest edges (weight descending, then key), kept
// at evidenceRelations.
func strongest(list []baseEdge, e baseEdge) []baseEdge {
	i, _ := slices.BinarySearchFunc(list, e, byStrength)
	if i >= evidenceRelations {
		return list
	}
	list = slices.Insert(list, i, e)
	return list[:min(len(list), evidenceRelations)]
}

// byStrength orders edges by weight, descending, then by their ends' ids (as their indexes).
func byStrength(a, b baseEdge) int {
	return cmp.Or(cmp.Compare(b.weight, a.weight), cmp.Compare(a.s, b.s), cmp.Compare(a.t, b.t))
}

// AggregateStats describes the aggregation of one layer.
type AggregateStats struct {
	Pairs     int     // pairs of summaries joined by at least one base relation
	Tau       float64 // the layer's threshold
	Relations int     // inter-summary relations written
}

// aggregate counts the base relations between the layer's summaries and returns the relations
// of the pairs at or above τ, described by d, ordered by key.
func (b *Builder) aggregate(ctx context.Context, layer int, ag *aggregator, summaries []Member, opt Options) ([]graph.Relation, AggregateStats, error) {
	occs, counts := ag.count()
	st := AggregateStats{Pairs: len(counts), Tau: Threshold(counts, opt.AggregateK)}
	counts = nil
	pairs := ag.kept(occs, st.Tau)
	occs = nil
	keys := make([]graph.RelationKey, 0, len(pairs))
	for k := range pairs {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b graph.RelationKey) int {
		return cmp.Or(cmp.Compare(a.Source, b.Source), cmp.Compare(a.Target, b.Target))
	})
	st.Relations = len(keys)
	if len(keys) == 0 {
		return nil, st, nil
	}
	// The descriptions of the evidence relations, read in one lookup.
	var evKeys []graph.RelationKey
	for _, k := range keys {
		for _, e := range pairs[k].evidence {
			evKeys = append(evKeys, graph.RelationKey{Source: ag.base[e.s], Target: ag.base[e.t]})
		}
	}
	found, err := b.Store.Relations(ctx, evKeys)
	if err != nil {
		return nil, st, fmt.Errorf("read the relations under layer %d: %w", layer, err)
	}
	desc := make(map[graph.RelationKey]string, len(found))
	for _, r := range found {
		desc[r.Key()] = r.Description
	}
	byID := make(map[string]Member, len(summaries))
	for _, s := range summaries {
		byID[s.ID] = s
	}
	rels := make([]graph.Relation, len(keys))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(opt.Concurrency)
	for i, k := range keys {
		p := pairs[k]
		sr := SummaryRelation{Source: byID[k.Source], Target: byID[k.Target], Count: p.count}
		for _, e := range p.evidence {
			if d := desc[graph.RelationKey{Source: ag.base[e.s], Target: ag.base[e.t]}]; d != "" {
				sr.Evidence = append(sr.Evidence, d)
			}
		}
		g.Go(func() error {
			d, err := b.Describer.DescribeRelation(gctx, sr)
			if err != nil {
				return fmt.Errorf("describe the relation %s -- %s of layer %d: %w", k.Source, k.Target, layer, err)
			}
			rels[i] = graph.Relation{Source: k.Source, Target: k.Target, Description: d, Weight: p.weight / float64(p.count), ChunkIDs: []string{}}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, st, err
	}
	return rels, st, nil
}
