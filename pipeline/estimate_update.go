package pipeline

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/llm"
	"github.com/stratarag/strata/pipeline/layers"
	"github.com/stratarag/strata/pipeline/resolve"
)

// A dry run of a change (`delete --dry-run`, `ingest --dry-run` against a store) predicts the
// model calls of the structure update that follows it (docs/ARCHITECTURE.md, "Updates") from the
// store as it is: the changed entities are known from the dry run's resolve output (for new
// chunks, of what the offline extractor finds in them); what an update does with them is
// predicted by walking the stored hierarchy and communities up from them. Reports are not
// bounded by the communities that hold a changed entity (Leiden, started from the stored
// partition, also moves members elsewhere), so their prediction carries a margin, measured on
// multihop (docs/ARCHITECTURE.md, Updates).
const updateReportMargin = 1.4

// summaryEstimator is a layer summarizer that can predict one call (layers.LLM).
type summaryEstimator interface {
	EstimateSummary(tok llm.Counter, members []graph.Entity) (llm.StageEstimate, error)
}

// reportEstimator is a reporter that can predict the call for one stored community (reports.LLM).
type reportEstimator interface {
	EstimateReport(ctx context.Context, store graph.Reader, c graph.Community) (llm.StageEstimate, error)
}

// predictedChange is what a dry run finds a change would record (changeSet.record): the entities
// written or removed, the relations written or removed (and their ends), the removed entities,
// and the new chunks whose entities are not known before extraction.
type predictedChange struct {
	changeSet // ids and ends as the batches would record them
	relations []graph.RelationKey
	removed   map[string]bool
	newChunks int
}

func newPredictedChange() *predictedChange {
	return &predictedChange{changeSet: changeSet{ids: map[string]bool{}, ends: map[string]bool{}}, removed: map[string]bool{}}
}

// add records a resolve output as changeSet.record records its batch. The summaries a removed
// entity belongs to are not added: the dry run leaves the entity in the store, and the walk up
// the hierarchy finds them from it.
func (c *predictedChange) add(out resolve.Output) {
	for _, e := range out.Entities {
		c.ids[e.ID] = true
	}
	for _, id := range out.DeleteEntities {
		c.ids[id] = true
		c.removed[id] = true
	}
	for _, r := range out.Relations {
		c.ends[r.Source], c.ends[r.Target] = true, true
		c.relations = append(c.relations, r.Key())
	}
	for _, k := range out.DeleteRelations {
		c.ends[k.Source], c.ends[k.Target] = true, true
		c.relations = append(c.relations, k)
	}
}

// estimateStructure predicts the model calls of the structure stages after the change: an
// update when the store's structure is complete (or needs recorded changes only) and the change
// stays within the drift bound, a build otherwise. The estimate is empty, with an assumption
// saying so, when no structure stage calls a model.
func (in *Ingester) estimateStructure(ctx context.Context, ch *predictedChange) (llm.Estimate, error) {
	var est llm.Estimate
	sumX, relX, repX := in.structureEstimators()
	if sumX == nil && repX == nil {
		return est, nil
	}
	stale, pending, err := readChanges(ctx, in.Store)
	if err != nil {
		return est, err
	}
	if ch.size() == 0 && ch.newChunks == 0 && !graph.StructurePending(stale) && !in.Options.Restructure {
		est.Assumptions = append(est.Assumptions, "structure: up to date, no call")
		return est, nil
	}
	maps.Copy(ch.ids, pending.ids)
	maps.Copy(ch.ends, pending.ends)
	st, err := in.Store.Stats(ctx)
	if err != nil {
		return est, fmt.Errorf("read store counts: %w", err)
	}
	drift := pending.drift
	within, err := withinUpdateBound(ctx, in.Store, drift+ch.size())
	if err != nil {
		return est, err
	}
	reason := ""
	switch {
	case in.Options.Restructure:
		reason = "--restructure"
	case stale != "false" && stale != "" && stale != graph.StructureChanged:
		reason = "an earlier run left it to build"
	case stale == "" && st.Nodes["Document"] > 0:
		reason = "the store records no finished structure"
	case !within:
		reason = fmt.Sprintf("about %d entities changed since the last build, more than %.0f %% of the graph", drift+ch.size(), 100*updateShare)
	}
	h, err := readStoredHierarchy(ctx, in.Store)
	if err != nil {
		return est, err
	}
	var touched map[string]bool // summaries an update writes again; nil: all (a build)
	if reason == "" {
		touched = h.climb(ch.ids, ch.removed, sumX != nil)
	}
	if sumX != nil {
		e, err := in.estimateSummaries(ctx, h, touched, ch, sumX)
		if err != nil {
			return est, err
		}
		est.Add(llm.StageLayers, e)
	}
	if relX != nil {
		call, err := relX.EstimateCall(in.Tokenizer)
		if err != nil {
			return est, err
		}
		var keys []graph.RelationKey
		above := h.pairsAbove(ch.relations)
		for layer := 1; layer <= h.top(); layer++ {
			err := in.Store.EachLayerEdge(ctx, layer, func(e graph.Edge) error {
				if k := (graph.RelationKey{Source: e.Source, Target: e.Target}); touched == nil || above[k] {
					keys = append(keys, k)
				}
				return nil
			})
			if err != nil {
				return est, fmt.Errorf("read the relations of layer %d: %w", layer, err)
			}
		}
		n := 0
		for start := 0; start < len(keys); start += 1000 {
			rels, err := in.Store.Relations(ctx, keys[start:min(start+1000, len(keys))])
			if err != nil {
				return est, fmt.Errorf("read the inter-summary relations: %w", err)
			}
			for _, r := range rels {
				if relX.RedescribesStored(r.Description) {
					n++
				}
			}
		}
		est.Add(llm.StageAggregate, llm.StageEstimate{Calls: n, PromptTokens: n * call.PromptTokens, CompletionTokens: n * call.CompletionTokens})
	}
	if repX != nil {
		e, err := in.estimateReports(ctx, touched, ch, repX)
		if err != nil {
			return est, err
		}
		est.Add(llm.StageReport, e)
	}
	if reason != "" {
		est.Assumptions = append(est.Assumptions, "structure: built whole ("+reason+"): one call per stored summary cluster, "+
			"inter-summary relation the model described and community with relations; the new structure may have more or fewer")
		return est, nil
	}
	est.Assumptions = append(est.Assumptions,
		fmt.Sprintf("structure: updated for %d changed entities; a summary cluster above them with at least %.0f %% of its members changed is summarized again and its summaries assumed rewritten, so the change climbs (an upper bound: a cluster whose summaries come out as stored stops it)", len(ch.ids), 100*layers.KeepShare),
		"structure: calls the response cache answers are counted as calls (their prompts depend on what the update writes)",
		"aggregate: one call per stored inter-summary relation above a changed relation (its base relations, and so its weight, change) whose stored description the model wrote (its evidence assumed as long as before); pairs the update makes new are not counted",
		fmt.Sprintf("report: one call per community, at any level, holding a changed entity or a rewritten summary, except those without relations or repeating their only child, times %.1f for the communities Leiden reshapes elsewhere (measured on multihop: 0.8 to 1.4); a from-scratch partition past the modularity bound is not counted", updateReportMargin))
	if ch.newChunks > 0 {
		est.Assumptions = append(est.Assumptions, fmt.Sprintf("structure: the entities of the %d new chunks are the offline extractor's (the proper nouns of their sentences); a model finds others too", ch.newChunks))
	}
	return est, nil
}

// structureEstimators returns the structure stages that call a model, as estimators (nil: the
// stage makes no call).
func (in *Ingester) structureEstimators() (summaryEstimator, relationEstimator, reportEstimator) {
	sumX, _ := in.LayerSummarizer.(summaryEstimator)
	repX, _ := in.Reporter.(reportEstimator)
	relX, _ := in.RelationDescriber.(relationEstimator)
	if in.layerBuilder() == nil {
		sumX = nil
	}
	if in.layerBuilder() == nil || !in.Options.Aggregate {
		relX = nil
	}
	return sumX, relX, repX
}

// structureOffline reports whether no structure stage calls a model.
func (in *Ingester) structureOffline() bool {
	sumX, _, repX := in.structureEstimators()
	return sumX == nil && repX == nil
}

// storedHierarchy is the summary layers as clusters: per layer of summaries (index 0 is layer
// 1), the summaries with the same members grouped.
type storedHierarchy struct {
	layers []layers.Clusters
}

func readStoredHierarchy(ctx context.Context, store graph.HierarchyReader) (storedHierarchy, error) {
	var h storedHierarchy
	for layer := 0; ; layer++ {
		links, err := store.LayerLinks(ctx, layer)
		if err != nil {
			return h, fmt.Errorf("read the links of layer %d: %w", layer, err)
		}
		if len(links) == 0 {
			return h, nil
		}
		h.layers = append(h.layers, layers.ClustersOf(links))
	}
}

// top is the highest summary layer.
func (h storedHierarchy) top() int { return len(h.layers) }

// clusters counts the clusters of every layer.
func (h storedHierarchy) clusterCount() int {
	n := 0
	for _, l := range h.layers {
		n += len(l.Members)
	}
	return n
}

// pairsAbove returns the pairs of summaries, at every layer, above the two ends of one of the
// relations: those whose inter-summary relation an update describes again.
func (h storedHierarchy) pairsAbove(relations []graph.RelationKey) map[graph.RelationKey]bool {
	out := map[graph.RelationKey]bool{}
	for _, r := range relations {
		a, b := []string{r.Source}, []string{r.Target}
		for _, l := range h.layers {
			a, b = up(l, a), up(l, b)
			for _, x := range a {
				for _, y := range b {
					if x != y {
						out[graph.RelationKey{Source: min(x, y), Target: max(x, y)}] = true
					}
				}
			}
		}
	}
	return out
}

// up returns the summaries of the ids in the layer l, each once.
func up(l layers.Clusters, ids []string) []string {
	var out []string
	for _, id := range ids {
		for _, s := range l.MemberOf[id] {
			if !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out
}

// climb returns the summaries an update writes again when every touched cluster's summaries
// change: the clusters holding a changed id as a member or as a summary, then, a layer up, those
// holding their summaries, and so on. With keep (a model writes the summaries), a cluster with
// fewer than layers.KeepShare of its members changed in place keeps its summaries, as
// layers.Builder does, and the change stops there.
func (h storedHierarchy) climb(changed, removed map[string]bool, keep bool) map[string]bool {
	dirty := maps.Clone(changed)
	touched := map[string]bool{}
	for _, l := range h.layers {
		counts := map[string]int{} // cluster key -> members changed in place
		for id := range dirty {
			keys := map[string]bool{}
			for _, s := range l.MemberOf[id] {
				keys[l.ClusterOf[s]] = true
			}
			for key := range keys {
				if !removed[id] {
					counts[key]++
				}
			}
			if key, ok := l.ClusterOf[id]; ok {
				counts[key] += len(l.Members[key]) // a summary itself changed: written again
			}
		}
		for key, n := range counts {
			left := 0 // the update counts the members a cluster keeps
			for _, m := range l.Members[key] {
				if !removed[m] {
					left++
				}
			}
			if keep && float64(n) < layers.KeepShare*float64(left) {
				continue // the update keeps its summaries (layers.Builder.keeps)
			}
			for _, s := range l.Summaries[key] {
				dirty[s], touched[s] = true, true
			}
		}
	}
	return touched
}

// estimateSummaries predicts the layers stage: one call per touched cluster (all clusters when
// touched is nil) left with two members or more.
func (in *Ingester) estimateSummaries(ctx context.Context, h storedHierarchy, touched map[string]bool, ch *predictedChange, x summaryEstimator) (llm.StageEstimate, error) {
	var total llm.StageEstimate
	for _, l := range h.layers {
		for _, key := range slices.Sorted(maps.Keys(l.Members)) {
			if touched != nil && !touched[l.Summaries[key][0]] {
				continue
			}
			var ids []string
			for _, m := range l.Members[key] {
				if !ch.removed[m] {
					ids = append(ids, m)
				}
			}
			if len(ids) < 2 {
				continue // dissolved: no call
			}
			var members []graph.Entity
			for start := 0; start < len(ids); start += 1000 {
				es, err := in.Store.Entities(ctx, ids[start:min(start+1000, len(ids))])
				if err != nil {
					return total, fmt.Errorf("read the members of a summary cluster: %w", err)
				}
				members = append(members, es...)
			}
			e, err := x.EstimateSummary(in.Tokenizer, members)
			if err != nil {
				return total, err
			}
			total.Calls += e.Calls
			total.PromptTokens += e.PromptTokens
			total.CompletionTokens += e.CompletionTokens
		}
	}
	return total, nil
}

// estimateReports predicts the report stage: the communities, at every level, holding a changed
// entity or a touched summary (every community when touched is nil), as reportEstimator
// prices them, and for an update updateReportMargin more.
func (in *Ingester) estimateReports(ctx context.Context, touched map[string]bool, ch *predictedChange, x reportEstimator) (llm.StageEstimate, error) {
	var total llm.StageEstimate
	var comms []graph.Community
	if touched == nil {
		var err error
		if comms, err = in.Store.CommunitiesByLevel(ctx, -1); err != nil {
			return total, fmt.Errorf("read the communities: %w", err)
		}
	} else {
		set := maps.Clone(ch.ids)
		maps.Copy(set, ch.ends) // a report reads the relations among its members
		maps.Copy(set, touched)
		seeds := slices.Sorted(maps.Keys(set))
		var err error
		if comms, err = communitiesOf(ctx, in.Store, seeds); err != nil {
			return total, fmt.Errorf("read the communities of the changed entities: %w", err)
		}
	}
	for _, c := range comms {
		e, err := x.EstimateReport(ctx, in.Store, c)
		if err != nil {
			return total, err
		}
		total.Calls += e.Calls
		total.PromptTokens += e.PromptTokens
		total.CompletionTokens += e.CompletionTokens
	}
	if touched == nil {
		return total, nil
	}
	st, err := in.Store.Stats(ctx)
	if err != nil {
		return total, fmt.Errorf("read store counts: %w", err)
	}
	// The communities Leiden reshapes elsewhere, each priced as the mean of those counted.
	if n := min(int(math.Ceil(float64(total.Calls)*updateReportMargin)), int(st.Nodes["Community"])) - total.Calls; n > 0 {
		total.PromptTokens += n * total.PromptTokens / total.Calls
		total.CompletionTokens += n * total.CompletionTokens / total.Calls
		total.Calls += n
	}
	return total, nil
}

// communitiesOf returns the communities, at every level, that hold one of the entities: through
// ExpandLocal, which reads only those, when the store searches (both backends do), otherwise from
// the members of every community.
func communitiesOf(ctx context.Context, store graph.Reader, ids []string) ([]graph.Community, error) {
	var comms []graph.Community
	seen := map[string]bool{}
	if s, ok := store.(graph.Searcher); ok {
		const page = 500
		for start := 0; start < len(ids); start += page {
			lc, err := s.ExpandLocal(ctx, ids[start:min(start+page, len(ids))], graph.LocalOptions{TopCommunities: math.MaxInt32})
			if err != nil {
				return nil, err
			}
			for _, c := range lc.Communities {
				if !seen[c.ID] {
					seen[c.ID] = true
					comms = append(comms, c.Community)
				}
			}
		}
		return comms, nil
	}
	all, err := store.CommunitiesByLevel(ctx, -1)
	if err != nil {
		return nil, err
	}
	want := make(map[string]bool, len(ids))
	for _, id := range ids {
		want[id] = true
	}
	for start := 0; start < len(all); start += 100 {
		part := all[start:min(start+100, len(all))]
		cids := make([]string, len(part))
		for i, c := range part {
			cids[i] = c.ID
		}
		members, err := store.CommunityEntities(ctx, cids)
		if err != nil {
			return nil, err
		}
		for _, c := range part {
			if slices.ContainsFunc(members[c.ID], func(e graph.Entity) bool { return want[e.ID] }) {
				comms = append(comms, c)
			}
		}
	}
	return comms, nil
}
