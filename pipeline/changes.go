package pipeline

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/stratarag/strata/internal/graph"
)

// updateShare is the share of the graph's entities past which changes are not applied to the
// structure one by one but the structure is built whole again: the changes since the last full
// build (graph.MetaStructureDrift, plus the pending ones) against the entities stored. Updates
// keep clusters and communities where they were and place new entities beside their
// neighbours; after a quarter of the graph has changed that way, a fresh build is both cheaper
// than many updates and closer to what the graph has become. `--restructure` asks for one at
// any time.
const updateShare = 0.25

// minUpdateLimit is the fewest changes an update is allowed whatever the size of the graph, so
// that a small store is not rebuilt at every change (and the store need not be counted for a
// small change).
const minUpdateLimit = 20

// withinUpdateBound reports whether n changed entities (those since the last build included)
// may be applied by an update rather than a build (updateShare, minUpdateLimit). The graph's
// size is the one the structure was last built over (graph.MetaStructureSize), or, in a store
// that does not record it, the entities it holds.
func withinUpdateBound(ctx context.Context, store graph.Reader, n int) (bool, error) {
	if n <= minUpdateLimit {
		return true, nil
	}
	v, ok, err := store.Meta(ctx, graph.MetaStructureSize)
	if err != nil {
		return false, fmt.Errorf("read store metadata: %w", err)
	}
	size, _ := strconv.ParseInt(v, 10, 64)
	if !ok || v == "" {
		st, err := store.Stats(ctx)
		if err != nil {
			return false, fmt.Errorf("read store counts: %w", err)
		}
		size = st.Nodes["Entity"]
	}
	return float64(n) <= updateShare*float64(size), nil
}

// changeSet records which entities a run changes, so that the structure stages update only
// what they touch (graph.MetaStructureChanged). It is written with every batch that changes the
// graph, in the batch's transaction, so a run killed after any batch leaves the list of what it
// changed.
type changeSet struct {
	full  bool            // the structure is built whole: nothing is recorded
	ids   map[string]bool // entities written or removed, summaries that lost a member
	ends  map[string]bool // ends of relations written or removed
	drift int             // changes applied by updates since the last build
	// reason says why the run's changes are no longer recorded: they passed the drift bound.
	reason string
}

// readChanges reads the structure's state (graph.MetaStructureStale) and the changes the store
// records since it was complete.
func readChanges(ctx context.Context, store graph.MetaReader) (string, *changeSet, error) {
	vals, err := graph.MetaValues(ctx, store, graph.MetaStructureStale, graph.MetaStructureChanged, graph.MetaStructureChangedEnds, graph.MetaStructureDrift)
	if err != nil {
		return "", nil, err
	}
	c := &changeSet{ids: map[string]bool{}, ends: map[string]bool{}}
	for _, id := range splitLines(vals[graph.MetaStructureChanged]) {
		c.ids[id] = true
	}
	for _, id := range splitLines(vals[graph.MetaStructureChangedEnds]) {
		c.ends[id] = true
	}
	c.drift, _ = strconv.Atoi(vals[graph.MetaStructureDrift])
	return vals[graph.MetaStructureStale], c, nil
}

// trackChanges starts a run's changeSet: changes are recorded when the store holds a complete
// structure (or one that needs only recorded changes) and the run does not rebuild it.
func (in *Ingester) trackChanges(ctx context.Context) (*changeSet, error) {
	stale, c, err := readChanges(ctx, in.Store)
	if err != nil {
		return nil, err
	}
	c.full = in.Options.Restructure || (stale != "false" && stale != graph.StructureChanged)
	return c, nil
}

// record adds what a batch changes to the set and the set to the batch's meta (the batch's Meta
// must be its own map). Removed entities are recorded with the summaries they belonged to,
// read before the batch removes their links.
func (c *changeSet) record(ctx context.Context, store graph.Reader, b *graph.Batch) error {
	if c == nil || c.full {
		b.Meta[graph.MetaStructureStale] = "true"
		return nil
	}
	for _, e := range b.Entities {
		c.ids[e.ID] = true
	}
	for _, id := range b.DeleteEntities {
		c.ids[id] = true
	}
	for _, r := range b.Relations {
		c.ends[r.Source], c.ends[r.Target] = true, true
	}
	for _, k := range b.DeleteRelations {
		c.ends[k.Source], c.ends[k.Target] = true, true
	}
	if len(b.DeleteEntities) > 0 {
		h, err := store.Ancestors(ctx, b.DeleteEntities)
		if err != nil {
			return fmt.Errorf("read the summaries of removed entities: %w", err)
		}
		removed := make(map[string]bool, len(b.DeleteEntities))
		for _, id := range b.DeleteEntities {
			removed[id] = true
		}
		for _, l := range h.Links {
			if removed[l.Member] {
				c.ids[l.Summary] = true
			}
		}
	}
	if ok, err := withinUpdateBound(ctx, store, c.drift+c.size()); err != nil {
		return err
	} else if !ok {
		c.full = true
		c.reason = fmt.Sprintf("more than %.0f %% of the graph changed since the structure was last built", 100*updateShare)
		b.Meta[graph.MetaStructureStale] = "true"
		b.Meta[graph.MetaStructureChanged], b.Meta[graph.MetaStructureChangedEnds] = "", ""
		return nil
	}
	b.Meta[graph.MetaStructureStale] = graph.StructureChanged
	b.Meta[graph.MetaStructureChanged] = joinLines(c.ids)
	b.Meta[graph.MetaStructureChangedEnds] = joinLines(c.ends)
	return nil
}

// size is the number of distinct entities changed, relation ends included.
func (c *changeSet) size() int {
	n := len(c.ids)
	for id := range c.ends {
		if !c.ids[id] {
			n++
		}
	}
	return n
}

// joinLines is a set of ids as a meta value holds it: sorted, one per line.
func joinLines(set map[string]bool) string {
	return strings.Join(slices.Sorted(maps.Keys(set)), "\n")
}

// splitLines reads what joinLines wrote.
func splitLines(v string) []string {
	var ids []string
	for _, id := range strings.Split(v, "\n") {
		if id != "" {
			ids = append(ids, id)
		}
	}
	return ids
}
