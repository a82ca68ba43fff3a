package layers

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/stratarag/strata/internal/cluster"
	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/idlist"
	"golang.org/x/sync/errgroup"
)

// The summaries of a layer's clusters, written a window of clusters at a time, and the
// SUMMARIZED_BY links from the members to them.

// summaries is a layer of summaries on its way to the store: the layerSet the next layer
// clusters, and what is written of each summary once.
type summaries struct {
	layerSet
	names, types, descs []string
}

// link is a SUMMARIZED_BY link as indexes: a member of the layer below and a summary.
type link struct {
	member, summary int32
	weight          float64
}

// members returns the rows of set as the summarizer sees them: stored entities without their
// embeddings, with their connections and labels. An extracted entity's Degree is its counted
// connections (the stored one is what the previous components stage left).
func (b *Builder) members(ctx context.Context, set layerSet, rows []int) ([]Member, error) {
	out := make([]Member, 0, len(rows))
	id := func(i int) string { return set.ids.At(rows[i]) }
	err := b.entities(ctx, set.layer, len(rows), id, b.Store.EntityTexts, func(es []graph.Entity) error {
		for _, e := range es {
			r := rows[len(out)]
			m := Member{Entity: e, Connections: int(set.conns[r]), Label: e.Name}
			if set.layer == 0 {
				m.Degree = m.Connections
			} else {
				m.Label = set.labels[r]
			}
			out = append(out, m)
		}
		return nil
	})
	return out, err
}

// byConnections orders members most connected first, then by id.
func byConnections(a, b Member) int {
	return cmp.Or(cmp.Compare(b.Connections, a.Connections), cmp.Compare(a.ID, b.ID))
}

// clusterSummaries is what summarizing one cluster gave: its summaries and its most connected
// member (the label a summary goes by comes from it).
type clusterSummaries struct {
	sums []Summary
	best Member
}

// summarize summarizes every cluster of two or more members and writes the summaries, a
// window of clusters at a time (the clusters of a window concurrently), and links members to
// them; summaries with the same id from different clusters are merged. It returns the
// summaries, the next layer, with the embeddings' dimensions, and the links, ordered by member
// then summary.
func (b *Builder) summarize(ctx context.Context, layer int, set layerSet, groups []cluster.Group, opt Options) (*summaries, []link, int, error) {
	next := &summaries{layerSet: layerSet{layer: layer}}
	var ids idlist.Builder
	index := map[string]int32{}
	var best []Member // of each summary, the most connected member of its clusters
	// Usually one summary a cluster: the links are sized for that, once, rather than grown by
	// doubling (millions of them at layer 0). Each group is let go once linked.
	n := 0
	for _, g := range groups {
		if len(g.Rows) >= 2 {
			n += len(g.Rows)
		}
	}
	links := make([]link, 0, n)
	// A summary is written with the window that first gives it. One that a later window gives
	// again has its description completed and is written again at the end (rare: soft clusters
	// whose best members coincide): grown holds the descriptions it is given again, joined to
	// the written one at the end, when the summaries written are read back in one pass.
	written := 0
	grown := map[int32][]string{}
	dims := 0
	for start := 0; start < len(groups); start += page {
		window := groups[start:min(start+page, len(groups))]
		results, err := b.summarizeWindow(ctx, layer, set, window, opt)
		if err != nil {
			return nil, nil, 0, err
		}
		for wi, res := range results {
			for _, s := range res.sums {
				id := SummaryID(s.Name, layer)
				if id == SummaryID("", layer) {
					continue
				}
				i, ok := index[id]
				switch {
				case !ok:
					i = int32(next.ids.Len())
					index[id] = i
					if err := ids.AddString(id); err != nil {
						return nil, nil, 0, fmt.Errorf("layer %d: %w", layer, err)
					}
					next.ids = ids.List()
					next.names = append(next.names, s.Name)
					next.types = append(next.types, cmp.Or(s.Type, "other"))
					next.descs = append(next.descs, s.Description)
					best = append(best, res.best)
				case int(i) >= written:
					next.descs[i] = joinDescription(next.descs[i], s.Description)
				default:
					grown[i] = append(grown[i], s.Description)
				}
				if ok && byConnections(res.best, best[i]) < 0 {
					best[i] = res.best
				}
				for j, r := range window[wi].Rows {
					links = append(links, link{member: int32(r), summary: i, weight: window[wi].Probs[j]})
				}
			}
			window[wi] = cluster.Group{}
		}
		d, err := b.writeSummaries(ctx, next, written, next.ids.Len())
		if err != nil {
			return nil, nil, 0, err
		}
		dims = cmp.Or(d, dims)
		written = next.ids.Len()
	}
	if len(grown) > 0 {
		again := slices.Sorted(maps.Keys(grown))
		if err := b.growDescriptions(ctx, next, again, grown); err != nil {
			return nil, nil, 0, err
		}
		if _, err := b.writeEntities(ctx, next, again); err != nil {
			return nil, nil, 0, err
		}
	}
	next.descs, next.types = nil, nil
	// A member in two clusters that gave summaries of one name is linked once, at its
	// strongest.
	slices.SortFunc(links, func(a, b link) int {
		return cmp.Or(cmp.Compare(a.member, b.member), cmp.Compare(a.summary, b.summary), cmp.Compare(b.weight, a.weight))
	})
	links = slices.CompactFunc(links, func(a, b link) bool { return a.member == b.member && a.summary == b.summary })
	// A summary is as connected as its members together, and goes by its best member's label.
	next.conns = make([]int32, next.ids.Len())
	for _, l := range links {
		next.conns[l.summary] += set.conns[l.member]
	}
	next.labels = make([]string, next.ids.Len())
	for i, m := range best {
		next.labels[i] = m.Label
	}
	return next, slices.Clip(links), dims, nil
}

// growDescriptions sets the descriptions of the summaries again of next to their written
// descriptions, read back a page at a time, joined with the ones more gives each.
func (b *Builder) growDescriptions(ctx context.Context, next *summaries, again []int32, more map[int32][]string) error {
	id := func(i int) string { return next.ids.At(int(again[i])) }
	k := 0
	return b.entities(ctx, next.layer, len(again), id, b.Store.EntityTexts, func(es []graph.Entity) error {
		for _, e := range es {
			i := again[k]
			desc := e.Description
			for _, d := range more[i] {
				desc = joinDescription(desc, d)
			}
			next.descs[i] = desc
			k++
		}
		return nil
	})
}

// joinDescription adds the description of a summary given again to the one it has, unless it
// holds it already.
func joinDescription(desc, more string) string {
	if more == "" || strings.Contains(desc, more) {
		return desc
	}
	return desc + "\n" + more
}

// memberPage is how many members summarizeWindow reads at a time, for as many clusters as
// they fill: a lookup per cluster made the stage a few thousand round trips on Neo4j.
const memberPage = 2 * page

// summarizeWindow summarizes the clusters of a window, reading their members memberPage at a
// time and summarizing the clusters of each read concurrently.
func (b *Builder) summarizeWindow(ctx context.Context, layer int, set layerSet, window []cluster.Group, opt Options) ([]clusterSummaries, error) {
	results := make([]clusterSummaries, len(window))
	for start := 0; start < len(window); {
		end, n := start, 0
		for ; end < len(window) && (n == 0 || n+len(window[end].Rows) <= memberPage); end++ {
			if len(window[end].Rows) >= 2 {
				n += len(window[end].Rows)
			}
		}
		if err := b.summarizePart(ctx, layer, set, window[start:end], results[start:end], opt); err != nil {
			return nil, err
		}
		start = end
	}
	return results, nil
}

// summarizePart reads the members of the clusters of part in one lookup (a member of several
// is read once) and summarizes the clusters concurrently into results.
func (b *Builder) summarizePart(ctx context.Context, layer int, set layerSet, part []cluster.Group, results []clusterSummaries, opt Options) error {
	var rows []int
	for _, grp := range part {
		if len(grp.Rows) >= 2 { // a lone entity needs no summary: it would only repeat itself
			rows = append(rows, grp.Rows...)
		}
	}
	slices.Sort(rows)
	rows = slices.Compact(rows)
	members, err := b.members(ctx, set, rows)
	if err != nil {
		return fmt.Errorf("read the members of clusters of layer %d: %w", layer-1, err)
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(opt.Concurrency)
	for ci, grp := range part {
		if len(grp.Rows) < 2 {
			continue
		}
		group := make([]Member, len(grp.Rows))
		for j, r := range grp.Rows {
			i, _ := slices.BinarySearch(rows, r)
			group[j] = members[i]
		}
		g.Go(func() error {
			slices.SortFunc(group, byConnections)
			s, err := b.Summarizer.Summarize(gctx, group)
			if err != nil {
				return fmt.Errorf("summarize a cluster of layer %d: %w", layer-1, err)
			}
			best := group[0]
			results[ci] = clusterSummaries{sums: s, best: Member{Entity: graph.Entity{ID: best.ID}, Connections: best.Connections, Label: best.Label}}
			return nil
		})
	}
	return g.Wait()
}

// writeSummaries embeds and writes the summaries [from, to) of next, dropping their
// descriptions once written. It returns the embeddings' dimensions (0 when there were none).
func (b *Builder) writeSummaries(ctx context.Context, next *summaries, from, to int) (int, error) {
	rows := make([]int32, to-from)
	for i := range rows {
		rows[i] = int32(from + i)
	}
	return b.writeEntities(ctx, next, rows)
}

// writeEntities embeds and writes the summaries of next given, a page at a time, and returns
// the embeddings' dimensions (0 when there were none).
func (b *Builder) writeEntities(ctx context.Context, next *summaries, rows []int32) (int, error) {
	dims := 0
	for start := 0; start < len(rows); start += page {
		part := rows[start:min(start+page, len(rows))]
		es := make([]graph.Entity, len(part))
		texts := make([]string, len(es))
		for i, j := range part {
			es[i] = graph.Entity{ID: next.ids.At(int(j)), Name: next.names[j], Type: next.types[j], Description: next.descs[j], Layer: next.layer, ComponentID: -1}
			texts[i] = es[i].EmbeddingText()
		}
		vecs, err := b.Embedder.Embed(ctx, texts)
		if err != nil {
			return 0, fmt.Errorf("embed layer %d: %w", next.layer, err)
		}
		if len(vecs) != len(es) {
			return 0, fmt.Errorf("embed layer %d: %d embeddings for %d summaries", next.layer, len(vecs), len(es))
		}
		for i := range es {
			es[i].Embedding = vecs[i]
			dims = len(vecs[i])
		}
		if err := b.Store.Apply(ctx, graph.Batch{Entities: es}); err != nil {
			return 0, fmt.Errorf("write summaries of layer %d: %w", next.layer, err)
		}
		for _, j := range part {
			next.descs[j] = ""
		}
	}
	return dims, nil
}

// writeLinks writes the SUMMARIZED_BY links of a layer (ordered by member), a page of members
// at a time, naming each member as stored.
func (b *Builder) writeLinks(ctx context.Context, below layerSet, next *summaries, links []link) error {
	for start := 0; start < len(links); {
		// A page ends at a member's last link, so that each member is read once.
		end := min(start+page, len(links))
		for end < len(links) && links[end].member == links[end-1].member {
			end++
		}
		var ids []string
		for i, l := range links[start:end] {
			if i == 0 || l.member != links[start+i-1].member {
				ids = append(ids, below.ids.At(int(l.member)))
			}
		}
		out := make([]graph.SummaryLink, 0, end-start)
		err := b.entities(ctx, below.layer, len(ids), func(i int) string { return ids[i] }, b.Store.EntityTexts, func(es []graph.Entity) error {
			for _, e := range es {
				for ; start < end && below.ids.At(int(links[start].member)) == e.ID; start++ {
					l := links[start]
					out = append(out, graph.SummaryLink{Member: e.ID, Summary: next.ids.At(int(l.summary)),
						Description: e.Name + " belongs to " + next.names[l.summary], Weight: l.weight})
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		if err := b.Store.Apply(ctx, graph.Batch{SummaryLinks: out}); err != nil {
			return fmt.Errorf("write the links of layer %d to layer %d: %w", below.layer, next.layer, err)
		}
	}
	return nil
}
