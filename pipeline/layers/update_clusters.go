package layers

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/stratarag/strata/internal/cluster"
	"github.com/stratarag/strata/internal/graph"
)

// labeller gives members their Connections and Label as Build ranks and names them: an
// extracted entity's connections are its relations, a summary's the sum of its members'; a
// summary's label is that of its most connected member.
type labeller struct {
	mu     sync.Mutex // clusters are summarized concurrently
	b      *Builder
	conns  map[string]int32  // of every entity met so far
	labels map[string]string // of summaries
	// below maps a summary to its members, for the layers read so far.
	below map[string][]string
}

// learn records the links of one layer.
func (l *labeller) learn(links []graph.SummaryLink) {
	if l.below == nil {
		l.below = map[string][]string{}
	}
	for _, k := range links {
		l.below[k.Summary] = append(l.below[k.Summary], k.Member)
	}
}

// connections returns the connections of an entity (a summary's: its members', summed). The
// caller holds l.mu, or is alone.
func (l *labeller) connections(id string) int32 {
	if c, ok := l.conns[id]; ok {
		return c
	}
	var c int32
	for _, m := range l.below[id] {
		c += l.connections(m)
	}
	l.conns[id] = c
	return c
}

// members reads the entities of ids (of one layer) as a Summarizer sees them, without their
// embeddings.
func (l *labeller) members(ctx context.Context, layer int, ids []string) ([]Member, error) {
	out := make([]Member, 0, len(ids))
	err := l.b.entities(ctx, layer, len(ids), func(i int) string { return ids[i] }, l.b.Store.EntityTexts, func(es []graph.Entity) error {
		l.mu.Lock()
		defer l.mu.Unlock()
		for _, e := range es {
			m := Member{Entity: e, Connections: int(l.connections(e.ID)), Label: e.Name}
			if layer == 0 {
				m.Degree = m.Connections
			} else {
				lab, err := l.label(ctx, e.ID)
				if err != nil {
					return err
				}
				m.Label = lab
			}
			out = append(out, m)
		}
		return nil
	})
	return out, err
}

// label returns the label of a summary: the label of its most connected member (an extracted
// entity's label is its name). The caller holds l.mu, or is alone.
func (l *labeller) label(ctx context.Context, id string) (string, error) {
	if s, ok := l.labels[id]; ok {
		return s, nil
	}
	ms := l.below[id]
	if len(ms) == 0 {
		return "", nil
	}
	best := slices.MinFunc(ms, func(a, b string) int {
		return cmp.Or(cmp.Compare(l.connections(b), l.connections(a)), cmp.Compare(a, b))
	})
	var s string
	if _, summary := l.below[best]; summary {
		var err error
		if s, err = l.label(ctx, best); err != nil {
			return "", err
		}
	} else {
		es, err := l.b.Store.EntityTexts(ctx, []string{best})
		if err != nil {
			return "", fmt.Errorf("read entity %s: %w", best, err)
		}
		if len(es) == 1 {
			s = es[0].Name
		}
	}
	l.labels[id] = s
	return s, nil
}

// labelAll gives the summaries of ids their labels as label does, reading the names they come
// from a page at a time rather than one by one. The caller is alone.
func (l *labeller) labelAll(ctx context.Context, ids []string) error {
	source := map[string][]string{} // extracted entity -> the summaries labelled with its name
	for _, id := range ids {
		chain, from := l.labelSource(id)
		if from != "" {
			source[from] = append(source[from], chain...)
		}
	}
	from := slices.Sorted(maps.Keys(source))
	for start := 0; start < len(from); start += page {
		es, err := l.b.Store.EntityTexts(ctx, from[start:min(start+page, len(from))])
		if err != nil {
			return fmt.Errorf("read the entities summaries are named after: %w", err)
		}
		for _, e := range es {
			for _, s := range source[e.ID] {
				l.labels[s] = e.Name
			}
		}
	}
	for _, e := range from { // gone: labelled "", as label does
		for _, s := range source[e] {
			if _, ok := l.labels[s]; !ok {
				l.labels[s] = ""
			}
		}
	}
	return nil
}

// labelSource follows label's choice of most connected members down from a summary without a
// label yet to the extracted entity whose name it takes, and returns the summaries on the way
// and that entity; "" when no name needs reading (the summaries on the way to a known label
// are given it).
func (l *labeller) labelSource(id string) ([]string, string) {
	var chain []string
	for {
		if lab, ok := l.labels[id]; ok {
			for _, s := range chain {
				l.labels[s] = lab
			}
			return nil, ""
		}
		ms := l.below[id]
		if len(ms) == 0 {
			return nil, ""
		}
		chain = append(chain, id)
		best := slices.MinFunc(ms, func(a, b string) int {
			return cmp.Or(cmp.Compare(l.connections(b), l.connections(a)), cmp.Compare(a, b))
		})
		if _, summary := l.below[best]; !summary {
			return chain, best
		}
		id = best
	}
}

// Clusters is one summary layer's clusters, read from the links into it (LayerLinks): the
// summaries with the same members are one cluster, keyed by its members, sorted and joined.
type Clusters struct {
	MemberOf  map[string][]string // member -> its summaries
	ClusterOf map[string]string   // summary -> its cluster's key
	Members   map[string][]string // key -> the cluster's members, sorted
	Summaries map[string][]string // key -> the cluster's summaries, sorted
}

// ClustersOf groups the links into one layer by cluster.
func ClustersOf(links []graph.SummaryLink) Clusters {
	c := Clusters{MemberOf: map[string][]string{}, ClusterOf: map[string]string{},
		Members: map[string][]string{}, Summaries: map[string][]string{}}
	members := map[string][]string{}
	for _, k := range links {
		c.MemberOf[k.Member] = append(c.MemberOf[k.Member], k.Summary)
		members[k.Summary] = append(members[k.Summary], k.Member)
	}
	for s, ms := range members {
		slices.Sort(ms)
		key := strings.Join(ms, "\x00")
		c.ClusterOf[s] = key
		c.Members[key] = ms
		c.Summaries[key] = append(c.Summaries[key], s)
	}
	for _, ss := range c.Summaries {
		slices.Sort(ss)
	}
	return c
}

// layerOutcome is what updating one layer changed: the summaries of the layer above written
// and removed, and the summaries two layers up that lost a member with them.
type layerOutcome struct {
	written, removed, lostMember []string
}

// clusterOf is one stored cluster: its summaries and their members.
type clusterOf struct {
	summaries []string
	members   []string
	weights   map[string]float64 // member -> its link weight (the strongest of its links)
	changed   int                // members the update changed in place
}

// updateLayer updates the summaries of layer+1 over the entities of layer: links are the stored
// links from layer to layer+1, above those from layer+1 to layer+2, dirty the changed entities
// by layer.
func (b *Builder) updateLayer(ctx context.Context, layer int, links, above []graph.SummaryLink, dirty map[int][]string, adj map[string][]string, lbl *labeller, opt Options) (LayerUpdate, layerOutcome, error) {
	lu := LayerUpdate{Layer: layer + 1}
	var out layerOutcome
	lbl.learn(links)
	cl := ClustersOf(links)
	memberOf, clusterKey := cl.MemberOf, cl.ClusterOf
	weight := make(map[graph.SummaryLink]float64, len(links))
	for _, k := range links {
		weight[graph.SummaryLink{Member: k.Member, Summary: k.Summary}] = k.Weight
	}
	clusters := make(map[string]*clusterOf, len(cl.Members))
	for key, ms := range cl.Members {
		c := &clusterOf{summaries: cl.Summaries[key], members: ms, weights: map[string]float64{}}
		for _, s := range c.summaries {
			for _, m := range ms {
				c.weights[m] = max(c.weights[m], weight[graph.SummaryLink{Member: m, Summary: s}])
			}
		}
		clusters[key] = c
	}
	touched := map[string]bool{}
	var orphans []string // summaries every member of which was removed
	for _, s := range dirty[layer+1] {
		if key, ok := clusterKey[s]; ok {
			touched[key] = true
		} else {
			orphans = append(orphans, s)
		}
	}
	slices.Sort(orphans)
	orphans = slices.Compact(orphans)
	var unplaced []string
	for _, id := range dirty[layer] {
		if ss, ok := memberOf[id]; ok {
			keys := map[string]bool{}
			for _, s := range ss {
				keys[clusterKey[s]] = true
			}
			for key := range keys {
				touched[key] = true
				clusters[key].changed++
			}
			continue
		}
		unplaced = append(unplaced, id)
	}
	slices.Sort(unplaced)
	unplaced = slices.Compact(unplaced)
	joined := map[string][]string{} // cluster key -> members it gains
	near, err := b.nearest(ctx, layer, unplaced, memberOf, adj)
	if err != nil {
		return lu, out, err
	}
	var alone []string
	for i, id := range unplaced {
		switch near[i] {
		case unembedded:
			continue // gone since, or without an embedding: Build leaves it out too
		case "":
			alone = append(alone, id)
			continue
		}
		key := clusterKey[near[i]]
		joined[key] = append(joined[key], id)
		touched[key] = true
		lu.Assigned++
	}
	lu.Kept = len(clusters) - len(touched)
	// Entities with no clustered neighbour (a document on a topic the graph did not have) form
	// new clusters of their own; a single one stays alone, as Build leaves a lone entity.
	if len(alone) >= 2 {
		key := "\x00new"
		clusters[key] = &clusterOf{weights: map[string]float64{}}
		joined[key] = alone
		touched[key] = true
	}

	parents := map[string][]string{} // summary of layer+1 -> its summaries in layer+2
	for _, k := range above {
		parents[k.Member] = append(parents[k.Member], k.Summary)
	}
	keys := slices.Sorted(maps.Keys(touched))
	if layer > 0 {
		// The members are summaries: their labels, read together rather than by each cluster.
		var ms []string
		for _, key := range keys {
			if c := clusters[key]; c != nil {
				ms = append(ms, c.members...)
			}
			ms = append(ms, joined[key]...)
		}
		if err := lbl.labelAll(ctx, ms); err != nil {
			return lu, out, err
		}
	}
	results := make([]clusterResult, len(keys))
	for start := 0; start < len(keys); {
		end, n := start, 0
		for ; end < len(keys) && (n == 0 || n+len(clusters[keys[end]].members)+len(joined[keys[end]]) <= memberPage); end++ {
			n += len(clusters[keys[end]].members) + len(joined[keys[end]])
		}
		if err := b.regenerateAll(ctx, layer, keys[start:end], clusters, joined, lbl, results[start:end], opt); err != nil {
			return lu, out, err
		}
		start = end
	}
	batch := graph.Batch{DeleteEntities: orphans}
	for _, s := range orphans {
		out.removed = append(out.removed, s)
		out.lostMember = append(out.lostMember, parents[s]...)
		lu.Dissolved++
		lu.Removed++
	}
	var texts []string
	for _, r := range results {
		switch {
		case r.dissolved:
			lu.Dissolved++
		case r.split:
			lu.Split++
		}
		lu.Regenerated++
		if r.unchanged {
			batch.SummaryLinks = append(batch.SummaryLinks, r.links...)
			continue
		}
		// The summaries it no longer has go with their links (the deletions of a batch run
		// before its writes: a split cluster's summaries are removed and written again); the
		// others are rewritten, with links from every member.
		for _, s := range r.remove {
			if !slices.Contains(r.ids, s) {
				out.removed = append(out.removed, s)
				lu.Removed++
			}
			out.lostMember = append(out.lostMember, parents[s]...)
		}
		batch.DeleteEntities = append(batch.DeleteEntities, r.remove...)
		for _, e := range r.entities {
			batch.Entities = append(batch.Entities, e)
			texts = append(texts, e.EmbeddingText())
			out.written = append(out.written, e.ID)
		}
		batch.SummaryLinks = append(batch.SummaryLinks, r.links...)
	}
	if len(batch.Entities) > 0 {
		vecs, err := b.Embedder.Embed(ctx, texts)
		if err != nil {
			return lu, out, fmt.Errorf("embed layer %d: %w", layer+1, err)
		}
		if len(vecs) != len(texts) {
			return lu, out, fmt.Errorf("embed layer %d: %d embeddings for %d summaries", layer+1, len(vecs), len(texts))
		}
		for i := range batch.Entities {
			batch.Entities[i].Embedding = vecs[i]
		}
	}
	// Two clusters may give a summary of one name: it is written once, with both descriptions.
	batch.Entities = mergeSummaries(batch.Entities)
	lu.Written = len(batch.Entities)
	if !batch.Empty() {
		if err := b.Store.Apply(ctx, batch); err != nil {
			return lu, out, fmt.Errorf("write the updated summaries of layer %d: %w", layer+1, err)
		}
	}
	slices.Sort(out.written)
	out.written = slices.Compact(out.written)
	return lu, out, nil
}

// mergeSummaries merges summaries of the same id, joining their descriptions.
func mergeSummaries(es []graph.Entity) []graph.Entity {
	slices.SortStableFunc(es, func(a, b graph.Entity) int { return cmp.Compare(a.ID, b.ID) })
	return slices.CompactFunc(es, func(a, b graph.Entity) bool {
		if a.ID != b.ID {
			return false
		}
		a.Description = joinDescription(a.Description, b.Description)
		return true
	})
}

// clusterResult is a touched cluster summarized again.
type clusterResult struct {
	// unchanged: the summaries came out as stored; only links for the members it gained.
	unchanged bool
	dissolved bool
	split     bool
	ids       []string       // the summaries' ids
	remove    []string       // the cluster's stored summaries to remove
	entities  []graph.Entity // the summaries to write (without embeddings)
	links     []graph.SummaryLink
}

// regenerateAll regenerates the touched clusters of keys concurrently into results, with their
// members (those they have and those they gain) read in one lookup, a member of several once.
func (b *Builder) regenerateAll(ctx context.Context, layer int, keys []string, clusters map[string]*clusterOf, joined map[string][]string, lbl *labeller, results []clusterResult, opt Options) error {
	idsOf := func(key string) []string {
		ids := slices.Concat(clusters[key].members, joined[key])
		slices.Sort(ids)
		return slices.Compact(ids)
	}
	var all []string
	for _, key := range keys {
		all = append(all, idsOf(key)...)
	}
	slices.Sort(all)
	all = slices.Compact(all)
	read, err := lbl.members(ctx, layer, all)
	if err != nil {
		return err
	}
	var sums []string
	for _, key := range keys {
		sums = append(sums, clusters[key].summaries...)
	}
	stored, err := b.storedSummaries(ctx, sums)
	if err != nil {
		return err
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(opt.Concurrency)
	for i, key := range keys {
		ids := idsOf(key)
		members := make([]Member, len(ids))
		for j, id := range ids {
			k, _ := slices.BinarySearch(all, id)
			members[j] = read[k]
		}
		g.Go(func() error {
			r, err := b.regenerate(gctx, layer, clusters[key], joined[key], members, stored, opt)
			results[i] = r
			return err
		})
	}
	return g.Wait()
}

// regenerate summarizes a touched cluster again with its members, those it has now and those
// it gains (gains), clustering it again first when it has grown past MaxClusterSize. stored
// holds its stored summaries (storedSummaries).
func (b *Builder) regenerate(ctx context.Context, layer int, c *clusterOf, gains []string, members []Member, stored map[string]graph.Entity, opt Options) (clusterResult, error) {
	var r clusterResult
	var err error
	if len(members) < 2 {
		r.dissolved, r.remove = true, c.summaries
		return r, nil
	}
	groups := [][]Member{members}
	weights := []map[string]float64{c.weights}
	if len(members) > splitSize(opt) || (len(c.summaries) == 0 && len(members) > opt.MaxClusterSize) {
		r.split = true
		if groups, weights, err = b.split(ctx, layer, members, opt); err != nil {
			return r, fmt.Errorf("cluster again a cluster of layer %d: %w", layer, err)
		}
	}
	if !r.split && b.keeps(c, gains, members, stored) {
		r.ids, r.unchanged = c.summaries, true
		for _, id := range c.summaries {
			e := stored[id]
			r.entities = append(r.entities, e)
			for _, m := range gains {
				r.links = append(r.links, graph.SummaryLink{Member: m, Summary: id, Description: m + " belongs to " + e.Name, Weight: 1})
			}
		}
		return r, nil
	}
	// A summary written again keeps the id of one the cluster had: it stays the same node of
	// the graph, with its links up and its communities, and what is above sees a changed
	// member rather than one gone and one new. A cluster clustered again gets new summaries.
	olds := slices.Sorted(slices.Values(c.summaries))
	if r.split {
		olds = nil
	}
	for gi, group := range groups {
		if len(group) < 2 {
			continue
		}
		slices.SortFunc(group, byConnections)
		sums, err := b.Summarizer.Summarize(ctx, group)
		if err != nil {
			return r, fmt.Errorf("summarize a cluster of layer %d: %w", layer, err)
		}
		for _, s := range sums {
			id := SummaryID(s.Name, layer+1)
			if id == SummaryID("", layer+1) {
				continue
			}
			if k := len(r.ids); k < len(olds) {
				id = olds[k]
			}
			r.ids = append(r.ids, id)
			r.entities = append(r.entities, graph.Entity{ID: id, Name: s.Name, Type: cmp.Or(s.Type, "other"),
				Description: s.Description, Layer: layer + 1, ComponentID: -1})
			for _, m := range group {
				w, ok := weights[gi][m.ID]
				if !ok {
					w = 1 // a member that joined by its neighbours
				}
				r.links = append(r.links, graph.SummaryLink{Member: m.ID, Summary: id, Description: m.Name + " belongs to " + s.Name, Weight: w})
			}
		}
	}
	for _, id := range c.summaries {
		if !slices.Contains(r.ids, id) {
			r.remove = append(r.remove, id)
		}
	}
	if r.split {
		r.remove = c.summaries // their links to members now in other groups must go
	}
	if !r.split && len(r.ids) > 0 {
		if sameAsStored(stored, c.summaries, r.entities) {
			r.unchanged = true
			r.links = slices.DeleteFunc(r.links, func(l graph.SummaryLink) bool { return !slices.Contains(gains, l.Member) })
		}
	}
	return r, nil
}

// KeepShare is the share of a cluster's members that an update must have changed in place or
// added for a model to summarize the cluster again. Below it the stored summaries stay: a
// summary stands for the whole cluster, which a few members changed do not make another, while
// writing it again costs a call and, since the summary then changes, the calls of every
// summary and community report above it (what an update costs: bench/README.md, update).
const KeepShare = 0.25

// keeps reports whether an update keeps the stored summaries of a touched cluster: they cost a
// model call (the extractive summarizer rewrites them for free), they are all stored, and fewer
// than KeepShare of its members changed or joined it. A member removed leaves the cluster
// without touching it, so it does not count.
func (b *Builder) keeps(c *clusterOf, gains []string, members []Member, stored map[string]graph.Entity) bool {
	if _, model := b.Summarizer.(*LLM); !model || len(c.summaries) == 0 {
		return false
	}
	for _, id := range c.summaries {
		if _, ok := stored[id]; !ok {
			return false
		}
	}
	return float64(c.changed+len(gains)) < KeepShare*float64(len(members))
}

// storedSummaries reads the summaries of ids that exist, without their embeddings, a page at
// a time, by id.
func (b *Builder) storedSummaries(ctx context.Context, ids []string) (map[string]graph.Entity, error) {
	out := make(map[string]graph.Entity, len(ids))
	for start := 0; start < len(ids); start += page {
		es, err := b.Store.EntityTexts(ctx, ids[start:min(start+page, len(ids))])
		if err != nil {
			return nil, fmt.Errorf("read summaries: %w", err)
		}
		for _, e := range es {
			out[e.ID] = e
		}
	}
	return out, nil
}

// sameAsStored reports whether the summaries written again (fresh) are the stored ones of a
// cluster (ids, found in stored), word for word.
func sameAsStored(stored map[string]graph.Entity, ids []string, fresh []graph.Entity) bool {
	if len(ids) != len(fresh) {
		return false
	}
	for _, id := range ids {
		if _, ok := stored[id]; !ok {
			return false
		}
	}
	for _, f := range fresh {
		e, ok := stored[f.ID]
		if !ok || !slices.Contains(ids, f.ID) || e.Name != f.Name || e.Type != f.Type || e.Description != f.Description {
			return false
		}
	}
	return true
}

// split clusters the members of a cluster grown past MaxClusterSize again, as Build clusters a
// layer (cluster.Bounded over their embeddings, read here: members come without them), and
// returns the groups with each member's probability.
func (b *Builder) split(ctx context.Context, layer int, members []Member, opt Options) ([][]Member, []map[string]float64, error) {
	rows := make([][]float32, 0, len(members))
	id := func(i int) string { return members[i].ID }
	err := b.entities(ctx, layer, len(members), id, b.Store.Entities, func(es []graph.Entity) error {
		for _, e := range es {
			rows = append(rows, e.Embedding)
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	groups, err := cluster.Bounded(rows, cluster.BoundedOptions{
		Size: opt.ClusterSize, MaxSize: opt.MaxClusterSize, Dims: opt.Dims,
		MaxComponents: opt.MaxComponents, Threshold: opt.Threshold,
		GMM: cluster.GMMOptions{Covariance: cluster.Diag, Seed: b.Seed},
	})
	if err != nil {
		return nil, nil, err
	}
	out := make([][]Member, len(groups))
	weights := make([]map[string]float64, len(groups))
	for i, g := range groups {
		weights[i] = map[string]float64{}
		for j, r := range g.Rows {
			out[i] = append(out[i], members[r])
			weights[i][members[r].ID] = g.Probs[j]
		}
	}
	return out, weights, nil
}
