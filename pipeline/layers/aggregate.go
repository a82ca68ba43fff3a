package layers

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/stratarag/strata/internal/llmtask/summaryrelation"

	"golang.org/x/sync/errgroup"

	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/idlist"
	"github.com/stratarag/strata/internal/llm"
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

// extractiveCount follows the count that starts an extractive description.
const extractiveCount = " relations join their members."

// extractive reports whether d is an extractive description (ExtractiveRelations).
func extractive(d string) bool {
	count, _, ok := strings.Cut(d, extractiveCount)
	_, err := strconv.Atoi(count)
	return ok && err == nil
}

// DescribeRelation implements RelationDescriber.
func (ExtractiveRelations) DescribeRelation(_ context.Context, r SummaryRelation) (string, error) {
	desc := strconv.Itoa(r.Count) + extractiveCount
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

// LLMRelations describes an inter-summary relation with a model (task summaryrelation, stage
// llm.StageAggregate) when its evidence is well beyond what the extractive description holds
// (modelEvidenceWords) or All says so; below that, the extractive description says most of what
// the evidence does, without a call, and a relation without evidence (its base relations are
// undescribed) gets the count alone. An unreadable
// answer gets the extractive description; API errors fail.
type LLMRelations struct {
	Chat llm.Chatter
	// All describes every relation with the model, whatever its evidence.
	All bool
}

// DescribeRelation implements RelationDescriber.
func (x *LLMRelations) DescribeRelation(ctx context.Context, r SummaryRelation) (string, error) {
	if len(r.Evidence) == 0 || !x.All && !needsModel(r) {
		return ExtractiveRelations{}.DescribeRelation(ctx, r)
	}
	d, err := summaryrelation.Describe(ctx, x.Chat, r.Source.Name, r.Source.Description, r.Target.Name, r.Target.Description, r.Count, r.Evidence)
	if errors.Is(err, prompts.ErrUnreadable) {
		return ExtractiveRelations{}.DescribeRelation(ctx, r)
	}
	return d, err
}

// modelEvidenceWords is the evidence an inter-summary relation needs for a model call: three
// times what an extractive description holds, so a call writes what two thirds of its evidence
// would otherwise lose. The extractive description keeps the strongest relations' own words,
// which is what the bridge level shows of the pair.
const modelEvidenceWords = 3 * evidenceWords

// needsModel reports whether the evidence of r is longer than a model call is worth.
func needsModel(r SummaryRelation) bool {
	words := 0
	for _, e := range r.Evidence {
		words += len(strings.Fields(e))
	}
	return words > modelEvidenceWords
}

// AggregateK is the default of Options.AggregateK.
const AggregateK = 1.0

// minAggregateCount is the least number of base relations an inter-summary relation stands for,
// whatever τ says: a single relation between two clusters is what the base graph already shows.
const minAggregateCount = 2

// threshold is τ of a layer: the mean plus k standard deviations of the number of base relations
// between the pairs of summaries joined by at least one, and at least minAggregateCount, over a
// histogram of those numbers (count → pairs joined by that many). Pair counts are heavy-tailed
// (most pairs share one or two relations, a few share dozens), so the rule keeps the pairs that
// stand out of their own layer whatever its size or density. The counts are summed in ascending
// order, so τ is the same number whatever their order.
func threshold(hist map[int]int, k float64) float64 {
	n := 0
	for _, m := range hist {
		n += m
	}
	if n == 0 {
		return minAggregateCount
	}
	counts := slices.Sorted(maps.Keys(hist))
	var sum, sq float64
	for _, c := range counts {
		for range hist[c] {
			sum += float64(c)
		}
	}
	mean := sum / float64(n)
	for _, c := range counts {
		for range hist[c] {
			sq += (float64(c) - mean) * (float64(c) - mean)
		}
	}
	return max(minAggregateCount, mean+k*math.Sqrt(sq/float64(n)))
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
	base  idlist.List // the base entities' ids, ascending: base.At(i) is entity i
	edges edgeList
	// The ancestors of base entity i in the current layer (indexes into current) are
	// anc[off[i]:off[i+1]], ascending; at layer 0, i itself.
	off, anc []int32
	current  idlist.List // the current layer's ids
	chunk    int         // occurrences held at once, about (chunkOccurrences)
}

// newAggregator numbers the base entities (ids ascending) and keeps the edges between two of
// them (numbered the same way).
func newAggregator(base idlist.List, edges edgeList) *aggregator {
	a := &aggregator{base: base, edges: edges, off: make([]int32, base.Len()+1), anc: make([]int32, base.Len()), current: base, chunk: chunkOccurrences}
	for i := range base.Len() {
		a.off[i+1] = int32(i + 1)
		a.anc[i] = int32(i)
	}
	return a
}

// climb moves the ancestors one layer up along the layer's summary links (ordered by member)
// to the summaries, whose ids are given.
func (a *aggregator) climb(links []link, summaries idlist.List) {
	// The links of member m are links[first[m]:first[m+1]].
	first := make([]int32, a.current.Len()+1)
	for _, l := range links {
		first[l.member+1]++
	}
	for m := range a.current.Len() {
		first[m+1] += first[m]
	}
	off := make([]int32, len(a.off))
	anc := make([]int32, 0, len(a.anc))
	var up []int32
	for i := range len(a.off) - 1 {
		up = up[:0]
		for _, m := range a.anc[a.off[i]:a.off[i+1]] {
			for _, l := range links[first[m]:first[m+1]] {
				if !slices.Contains(up, l.summary) {
					up = append(up, l.summary)
				}
			}
		}
		slices.Sort(up)
		anc = append(anc, up...)
		off[i+1] = int32(len(anc))
	}
	a.off, a.anc, a.current = off, slices.Clip(anc), summaries
}

// occurrence is one base relation (its number in aggregator.edges) counted for the pair of
// current-layer entities x < y.
type occurrence struct{ x, y, edge int32 }

// pairs appends the occurrences of base relation e, number i, to occs: one for each pair of
// distinct current-layer entities above its two ends.
func (a *aggregator) pairs(occs []occurrence, i int32, e baseEdge) []occurrence {
	start := len(occs)
	for _, x := range a.anc[a.off[e.s]:a.off[e.s+1]] {
		for _, y := range a.anc[a.off[e.t]:a.off[e.t+1]] {
			if x == y {
				continue
			}
			o := occurrence{min(x, y), max(x, y), i}
			if !slices.Contains(occs[start:], o) {
				occs = append(occs, o)
			}
		}
	}
	return occs
}

// chunkOccurrences bounds the occurrences held at once (12 bytes each).
const chunkOccurrences = 1 << 20

// eachChunk calls fn with the occurrences of every base relation (each pair of distinct
// current-layer entities above its two ends, once: a relation counts once for each pair of
// distinct ancestors of its ends), sorted by pair, then relation, a range of pairs at a time:
// the pairs whose smaller entity lies in the range, the ranges sized so that a chunk holds about
// chunkOccurrences. A flat, sorted list of a dozen bytes per occurrence rather than a map of
// every pair, and a bounded one: a layer of millions of entities has tens of millions. It stops
// with ctx's error, checked before every chunk, when ctx is done.
func (a *aggregator) eachChunk(ctx context.Context, fn func([]occurrence) error) error {
	perX := make([]int, a.current.Len()+1)
	var scratch []occurrence
	err := a.edges.each(func(i int32, e baseEdge) {
		scratch = a.pairs(scratch[:0], i, e)
		for _, o := range scratch {
			perX[o.x]++
		}
	})
	if err != nil {
		return err
	}
	var occs []occurrence
	for lo := 0; lo < a.current.Len(); {
		if err := ctx.Err(); err != nil {
			return err
		}
		hi, n := lo, 0
		for hi < a.current.Len() && (hi == lo || n+perX[hi] <= a.chunk) {
			n += perX[hi]
			hi++
		}
		occs = slices.Grow(occs[:0], n)
		err := a.edges.each(func(i int32, e baseEdge) {
			scratch = a.pairs(scratch[:0], i, e)
			for _, o := range scratch {
				if int(o.x) >= lo && int(o.x) < hi {
					occs = append(occs, o)
				}
			}
		})
		if err != nil {
			return err
		}
		slices.SortFunc(occs, func(a, b occurrence) int {
			return cmp.Or(cmp.Compare(a.x, b.x), cmp.Compare(a.y, b.y), cmp.Compare(a.edge, b.edge))
		})
		if err := fn(occs); err != nil {
			return err
		}
		lo = hi
	}
	return nil
}

// histogram counts the pairs joined by each number of base relations.
func (a *aggregator) histogram(ctx context.Context) (map[int]int, error) {
	hist := map[int]int{}
	err := a.eachChunk(ctx, func(occs []occurrence) error {
		eachPair(occs, func(run []occurrence) { hist[len(run)]++ })
		return nil
	})
	return hist, err
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

// keptPair is a pair of current-layer entities kept by τ, keyed by their ids.
type keptPair struct {
	key  graph.RelationKey
	x, y int32 // key.Source and key.Target as indexes into current
	pairCount
}

// kept returns the pairs joined by at least tau base relations, ordered by key: their count,
// the sum of the relations' weights in relation order, and the strongest relations.
func (a *aggregator) kept(ctx context.Context, tau float64) ([]keptPair, error) {
	var out []keptPair
	err := a.eachChunk(ctx, func(occs []occurrence) error {
		var err error
		eachPair(occs, func(run []occurrence) {
			if err != nil || float64(len(run)) < tau {
				return
			}
			p := keptPair{x: run[0].x, y: run[0].y}
			if a.current.At(int(p.y)) < a.current.At(int(p.x)) {
				p.x, p.y = p.y, p.x
			}
			p.key = graph.RelationKey{Source: a.current.At(int(p.x)), Target: a.current.At(int(p.y))}
			for _, o := range run {
				var e baseEdge
				if e, err = a.edges.at(o.edge); err != nil {
					return
				}
				p.count++
				p.weight += e.weight
				p.evidence = strongest(p.evidence, e)
			}
			out = append(out, p)
		})
		return err
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b keptPair) int {
		return cmp.Or(cmp.Compare(a.key.Source, b.key.Source), cmp.Compare(a.key.Target, b.key.Target))
	})
	return out, nil
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

// aggregate counts the base relations between the layer's summaries and writes the relations
// of the pairs at or above τ, described by d, a page of pairs at a time.
func (b *Builder) aggregate(ctx context.Context, layer int, ag *aggregator, next *summaries, opt Options) (AggregateStats, error) {
	hist, err := ag.histogram(ctx)
	if err != nil {
		return AggregateStats{}, err
	}
	st := AggregateStats{Tau: threshold(hist, opt.AggregateK)}
	for _, m := range hist {
		st.Pairs += m
	}
	pairs, err := ag.kept(ctx, st.Tau)
	if err != nil {
		return st, err
	}
	st.Relations = len(pairs)
	for start := 0; start < len(pairs); start += page {
		if err := b.describe(ctx, layer, ag, next, pairs[start:min(start+page, len(pairs))], opt); err != nil {
			return st, err
		}
	}
	return st, nil
}

// describe describes the inter-summary relations of pairs (concurrently) and writes them.
func (b *Builder) describe(ctx context.Context, layer int, ag *aggregator, next *summaries, pairs []keptPair, opt Options) error {
	// The descriptions of the evidence relations, read in one lookup.
	var evKeys []graph.RelationKey
	for _, p := range pairs {
		for _, e := range p.evidence {
			evKeys = append(evKeys, graph.RelationKey{Source: ag.base.At(int(e.s)), Target: ag.base.At(int(e.t))})
		}
	}
	found, err := b.Store.Relations(ctx, evKeys)
	if err != nil {
		return fmt.Errorf("read the relations under layer %d: %w", layer, err)
	}
	desc := make(map[graph.RelationKey]string, len(found))
	for _, r := range found {
		desc[r.Key()] = r.Description
	}
	// The summaries at the ends, as stored.
	var rows []int
	for _, p := range pairs {
		rows = append(rows, int(p.x), int(p.y))
	}
	slices.Sort(rows)
	rows = slices.Compact(rows)
	ends, err := b.members(ctx, next.layerSet, rows)
	if err != nil {
		return fmt.Errorf("read the summaries of layer %d: %w", layer, err)
	}
	end := func(x int32) Member {
		i, _ := slices.BinarySearch(rows, int(x))
		m := ends[i]
		m.Embedding = nil
		return m
	}
	rels := make([]graph.Relation, len(pairs))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(opt.Concurrency)
	for i, p := range pairs {
		sr := SummaryRelation{Source: end(p.x), Target: end(p.y), Count: p.count}
		for _, e := range p.evidence {
			if d := desc[graph.RelationKey{Source: ag.base.At(int(e.s)), Target: ag.base.At(int(e.t))}]; d != "" {
				sr.Evidence = append(sr.Evidence, d)
			}
		}
		g.Go(func() error {
			d, err := b.Describer.DescribeRelation(gctx, sr)
			if err != nil {
				return fmt.Errorf("describe the relation %s -- %s of layer %d: %w", p.key.Source, p.key.Target, layer, err)
			}
			rels[i] = graph.Relation{Source: p.key.Source, Target: p.key.Target, Description: d, Weight: p.weight / float64(p.count), ChunkIDs: []string{}}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	if err := b.Store.Apply(ctx, graph.Batch{Relations: rels}); err != nil {
		return fmt.Errorf("write the relations of layer %d: %w", layer, err)
	}
	return nil
}
