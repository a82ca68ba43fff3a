package retrieval

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/textutil"
	"github.com/stratarag/strata/prompts"
)

// Parameters of arch mode (ArchRAG's hierarchical search and adaptive filtering).
const (
	// archNodes is the default number of nodes found per layer (Options.Entities).
	archNodes = 10
	// archMaxLayers guards the descent against a store that records an absurd layer count.
	archMaxLayers = 32
)

// archFinder finds arch mode's nodes at every layer from the top (layers) down, k per layer;
// Options.archFind replaces the default (archFindFlat, with layer 0 fused with full-text search
// by Engine.archEntities) in benchmarks that compare other searches.
type archFinder func(ctx context.Context, store graph.ArchIndex, qvec []float32, layers, k int) ([]archHit, error)

// archHit is a node found at one layer of the hierarchy.
type archHit struct {
	layer int
	hit   graph.Hit
}

// archPoint is a scored point of the filtering step with the nodes it comes from.
type archPoint struct {
	description string
	score       float64
	layer       int
	sources     []string // node ids: entities at layer 0, communities above
}

// arch is ArchRAG-style retrieval over the attributed-community hierarchy: the nodes nearest to
// the question at every layer (archFlat by default), then per layer the points that help
// answer it, scored 0–100 (by the Mapper, as global search's map step, or offline by similarity),
// merged and ranked; then the source chunks the points lead to (archChunks), laid out as hi's
// sources, and the points in at most hiGraphRatio of the sources' tokens.
func (e *Engine) arch(ctx context.Context, question string, qvec []float32, opt Options, res *Result) error {
	store, ok := e.Store.(graph.ArchIndex)
	if !ok {
		return errors.New("this store cannot hold attributed communities")
	}
	layers, err := e.archLayers(ctx)
	if err != nil {
		return err
	}
	if layers == 0 {
		return errors.New("the store has no attributed communities: run `strata ingest --arch N` (for example --arch 3) first")
	}
	t := time.Now()
	var hits []archHit
	if opt.archFind != nil {
		hits, err = (*opt.archFind)(ctx, store, qvec, layers, opt.Entities)
	} else {
		hits, err = e.archFindFused(ctx, store, question, qvec, layers, opt.Entities)
	}
	if err != nil {
		return err
	}
	res.TimingsMS["search"] = ms(time.Since(t))

	// The nodes behind the hits, by layer: entities at 0, communities above.
	var entityIDs, commIDs []string
	score := map[string]float64{}
	for _, h := range hits {
		score[h.hit.ID] = h.hit.Score
		if h.layer == 0 {
			entityIDs = append(entityIDs, h.hit.ID)
		} else {
			commIDs = append(commIDs, h.hit.ID)
		}
	}
	entities, err := e.Store.Entities(ctx, entityIDs)
	if err != nil {
		return err
	}
	comms, err := store.ArchCommunities(ctx, commIDs)
	if err != nil {
		return err
	}
	items := archItems(hits, entities, comms)

	t = time.Now()
	var points []archPoint
	if e.Mapper == nil {
		points = offlineArchPoints(items)
	} else if points, err = e.filterLayers(ctx, question, items, opt.MaxContextTokens); err != nil {
		return err
	}
	res.TimingsMS["filter"] = ms(time.Since(t))
	points = slices.DeleteFunc(points, func(p archPoint) bool { return !(p.score > 0) })
	slices.SortStableFunc(points, func(a, b archPoint) int { return cmp.Compare(b.score, a.score) })

	byID := map[string]archItem{}
	for _, it := range items {
		byID[it.id] = it
	}
	chunks, err := e.archChunks(ctx, store, question, qvec, points, byID, opt.TopK)
	if err != nil {
		return err
	}
	// The sources first, as in hi: the findings restate and connect them, so they get at most
	// hiGraphRatio tokens per source token.
	total := opt.MaxContextTokens
	sources := newContextBuilder(e.Tokenizer)
	full := int(math.Ceil(hiFullShare * float64(opt.TopK)))
	budget := int(float64(total) / (1 + hiGraphRatio))
	res.Context.Chunks = sources.chunks("Sources", excerpts(e.Tokenizer, question, chunks, full, budget), budget)
	findings := min(int(hiGraphRatio*float64(sources.spent())), total-sources.spent())
	if len(chunks) == 0 {
		findings = total
	}
	b := newContextBuilder(e.Tokenizer)
	n := b.section("Findings", len(points), func(i int) string { return renderArchPoint(points[i]) }, findings)
	seen := map[string]bool{}
	for _, p := range points[:n] {
		for _, id := range p.sources {
			it, ok := byID[id]
			if !ok || seen[id] {
				continue
			}
			seen[id] = true
			if it.layer == 0 {
				res.Context.Entities = append(res.Context.Entities, EntityItem{ID: id, Name: it.entity.Name, Type: it.entity.Type,
					Description: it.entity.Description, Layer: 0, Score: it.score})
			} else {
				res.Context.Communities = append(res.Context.Communities, CommunityItem{ID: id, Level: it.layer, Title: it.comm.Title, Summary: it.comm.Summary})
			}
		}
	}
	b.append(sources)
	res.ContextText = b.String()
	res.Budget = b.budget(opt.MaxContextTokens)
	return nil
}

// archChunks ranks the source chunks of the filtered points: the chunks mentioning the layer-0
// entities the points come from, and those mentioning the globalMembers members nearest to the
// question of the layer-1 communities they come from, fused by document with the lexical chunk
// ranking as hi fuses its channels (the entities' chunks weighing as hi's local level, the
// communities' as its global level). The walk over layer 0 from the top lexical documents
// (walkChunks: the documents sharing rare entities with them, and those about such an entity)
// joins them, with the points' entities as the entities that count most: the points say what
// the question is about, the links find the second document of a multi-hop question that
// neither the words nor the points name.
func (e *Engine) archChunks(ctx context.Context, store graph.ArchIndex, question string, qvec []float32, points []archPoint, byID map[string]archItem, topK int) ([]ChunkItem, error) {
	var entityIDs, memberIDs []string
	rank := map[string]int{} // the points' entities in point order, as walkChunks weighs them
	for _, p := range points {
		for _, id := range p.sources {
			switch it := byID[id]; {
			case it.id == "":
			case it.layer == 0:
				if _, ok := rank[id]; !ok {
					rank[id] = len(entityIDs)
					entityIDs = append(entityIDs, id)
				}
			case it.layer == 1:
				memberIDs = append(memberIDs, it.comm.Members...)
			}
		}
	}
	// Three independent lookups: the lexical ranking and the walk from it, the points' entities'
	// chunks, and their communities' members' chunks.
	var lexical, walked, about []graph.Chunk
	var local [2][]graph.Chunk // the points' entities' chunks, their communities' members'
	expand := func(ctx context.Context, i int, ids []string) error {
		lc, err := e.Store.ExpandLocal(ctx, ids, graph.LocalOptions{TopChunks: topK * 3})
		local[i] = rankedChunks(qvec, lc.Chunks)
		return err
	}
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		var err error
		if lexical, _, err = e.lexicalChunks(gctx, question, qvec, topK*4); err != nil {
			return err
		}
		links, err := e.walkLinks(gctx, lexical)
		if err != nil {
			return err
		}
		walked, about, err = e.walkChunks(gctx, links, rank)
		return err
	})
	if len(entityIDs) > 0 {
		g.Go(func() error { return expand(gctx, 0, entityIDs) })
	}
	if len(memberIDs) > 0 {
		g.Go(func() error {
			// Only the members nearest to the question, as a descent into the layer below finds
			// them: a layer-1 community holds up to hundreds of entities, and reading the chunks
			// of all of them took most of a query's time for a channel of weight .05.
			hits, err := store.ArchSearch(gctx, 0, qvec, graph.UniqueIDs(memberIDs), globalMembers)
			if err != nil || len(hits) == 0 {
				return err
			}
			ids := make([]string, len(hits))
			for i, h := range hits {
				ids[i] = h.ID
			}
			return expand(gctx, 1, ids)
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	// In hi's channel order: fuseDocuments lists a document's chunks by channel order.
	channels := []channel{{lexicalWeight, lexical}, {walkWeight, walked}, {localWeight, local[0]},
		{aboutWeight, about}, {globalWeight, local[1]}}
	docs, err := e.Store.Documents(ctx, channelDocuments(channels))
	if err != nil {
		return nil, err
	}
	named := namedDocuments(question, docs, lexical)
	for id, s := range metadataDocuments(question, docs) {
		if named == nil {
			named = map[string]float64{}
		}
		named[id] += s
	}
	titles := make(map[string]string, len(docs))
	for _, d := range docs {
		titles[d.ID] = d.Title
	}
	ranked, scores := fuseDocuments(channels, named, newCoverage(question, lexical, titles), topK)
	return itemsOf(ranked, scores, docs), nil
}

// archLayers reads how many layers the stored hierarchy has.
func (e *Engine) archLayers(ctx context.Context) (int, error) {
	v, ok, err := e.Store.Meta(ctx, graph.MetaArchLayers)
	if err != nil || !ok || v == "" {
		return 0, err
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("store metadata %s = %q is not a layer count", graph.MetaArchLayers, v)
	}
	return min(n, archMaxLayers), nil
}

// archFindFused is arch mode's search: every layer above 0 on its own (archFindFlat), layer 0
// fused with full-text search (Engine.archEntities). On multihop it finds the gold documents of
// ArchRAG's descent down the hierarchy twice as often, for about a millisecond more
// (bench/README.md, arch).
func (e *Engine) archFindFused(ctx context.Context, store graph.ArchIndex, question string, qvec []float32, layers, k int) ([]archHit, error) {
	hits, err := archFindFlat(ctx, store, qvec, layers, k)
	if err != nil {
		return nil, err
	}
	base, err := e.archEntities(ctx, store, question, qvec, k)
	if err != nil {
		return nil, err
	}
	for _, h := range base {
		hits = append(hits, archHit{layer: 0, hit: h})
	}
	return hits, nil
}

// archFindFlat returns the k nodes nearest to qvec at every layer from the top (layers) down to
// layer 1, top layer first, each layer searched on its own.
func archFindFlat(ctx context.Context, store graph.ArchIndex, qvec []float32, layers, k int) ([]archHit, error) {
	var out []archHit
	for l := layers; l >= 1; l-- {
		hits, err := store.ArchSearch(ctx, l, qvec, nil, k)
		if err != nil {
			return nil, err
		}
		for _, h := range hits {
			out = append(out, archHit{layer: l, hit: h})
		}
	}
	return out, nil
}

// archItem is a node found, with what the points are written from.
type archItem struct {
	id     string
	layer  int
	score  float64
	entity graph.Entity
	comm   graph.ArchCommunity
}

// archItems joins the hits with their nodes, in hit order; hits whose node is gone are dropped.
func archItems(hits []archHit, entities []graph.Entity, comms []graph.ArchCommunity) []archItem {
	ents := map[string]graph.Entity{}
	for _, en := range entities {
		ents[en.ID] = en
	}
	cs := map[string]graph.ArchCommunity{}
	for _, c := range comms {
		cs[c.ID] = c
	}
	var out []archItem
	for _, h := range hits {
		it := archItem{id: h.hit.ID, layer: h.layer, score: h.hit.Score}
		if h.layer == 0 {
			en, ok := ents[h.hit.ID]
			if !ok {
				continue
			}
			it.entity = en
		} else {
			c, ok := cs[h.hit.ID]
			if !ok {
				continue
			}
			it.comm = c
		}
		out = append(out, it)
	}
	return out
}

// text is the item's line for a point or the filtering prompt.
func (it archItem) text() string {
	if it.layer == 0 {
		return fmt.Sprintf("%s (%s): %s", it.entity.Name, it.entity.Type, shortDescription(it.entity.Description))
	}
	return it.comm.Title + ": " + textutil.OneLine(it.comm.Summary)
}

// offlineArchPoints stands in for the filtering step without a model: every node found is one
// point, scored by its similarity to the question (the cosine, 0–100, from the (1+cos)/2 hit
// score), as global search scores reports offline.
func offlineArchPoints(items []archItem) []archPoint {
	out := make([]archPoint, len(items))
	for i, it := range items {
		cos := max(0, 2*it.score-1)
		out[i] = archPoint{description: it.text(), score: math.Round(1000*cos) / 10, layer: it.layer, sources: []string{it.id}}
	}
	return out
}

// filterLayers is ArchRAG's adaptive filtering: per layer, the Mapper (global search's map step)
// extracts the points of that layer's nodes that help answer the question, scored 0–100. The
// nodes are named in the prompt as [report:L<layer>-<n>], citations the key-points prompt asks
// for, and mapped back to node ids here. Layers run at most globalMapConcurrency at a time.
func (e *Engine) filterLayers(ctx context.Context, question string, items []archItem, budget int) ([]archPoint, error) {
	var layers []int
	for _, it := range items {
		if !slices.Contains(layers, it.layer) {
			layers = append(layers, it.layer)
		}
	}
	results := make([][]archPoint, len(layers))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(globalMapConcurrency)
	for i, layer := range layers {
		g.Go(func() error {
			var labels, ids []string
			var sb strings.Builder
			for _, it := range items {
				if it.layer != layer {
					continue
				}
				label := fmt.Sprintf("L%d-%d", layer, len(labels))
				labels, ids = append(labels, label), append(ids, it.id)
				fmt.Fprintf(&sb, "[report:%s] %s\n", label, it.text())
			}
			text := clipTokens(e.Tokenizer, sb.String(), budget)
			pts, err := e.Mapper.KeyPoints(gctx, question, text)
			if errors.Is(err, prompts.ErrUnreadable) {
				return nil // the model's answer held no points
			}
			if err != nil {
				return fmt.Errorf("filter layer %d: %w", layer, err)
			}
			for _, p := range pts {
				// The labels mean nothing outside this prompt: the cited nodes become the
				// point's sources and every citation leaves the text.
				_, cited := attribute(p.Description, labels)
				desc, _, _ := prompts.FilterCitations(p.Description, func(prompts.Citation) bool { return false })
				ap := archPoint{description: desc, score: p.Score, layer: layer}
				for _, c := range cited {
					ap.sources = append(ap.sources, ids[slices.Index(labels, c)])
				}
				if len(ap.sources) == 0 {
					ap.sources = slices.Clone(ids) // a point citing none comes from all of them
				}
				results[i] = append(results[i], ap)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return slices.Concat(results...), nil
}

// renderArchPoint writes a point for the context text with the nodes it comes from, as
// [entity:ID] or [community:ID] at the end.
func renderArchPoint(p archPoint) string {
	refs := make([]string, len(p.sources))
	for i, id := range p.sources {
		if p.layer == 0 {
			refs[i] = "entity:" + id
		} else {
			refs[i] = "community:" + id
		}
	}
	return fmt.Sprintf("(layer %d, importance %s) %s [%s]", p.layer, strconv.FormatFloat(p.score, 'f', -1, 64),
		textutil.OneLine(p.description), strings.Join(refs, ", "))
}

// archEntities is a flat search's layer 0: the entity vector search fused with the full-text
// search over entity names and descriptions (as local search seeds), extracted entities only,
// each scored by its similarity to the question. Words of the question that name an entity
// count for more than the offline embedder's vectors can tell.
func (e *Engine) archEntities(ctx context.Context, store graph.ArchIndex, question string, qvec []float32, k int) ([]graph.Hit, error) {
	vhits, err := store.ArchSearch(ctx, 0, qvec, nil, 2*k)
	if err != nil {
		return nil, err
	}
	thits, err := e.Store.TextSearch(ctx, graph.EntityText, textQuery(question), 2*k)
	if err != nil {
		return nil, err
	}
	fused := fuse(weightedList{vhits, 1}, weightedList{thits, 1})
	ids := make([]string, len(fused))
	for i, h := range fused {
		ids[i] = h.ID
	}
	// Restricted to the fused ids, the layer-0 search drops summary entities and scores the rest.
	scored, err := store.ArchSearch(ctx, 0, qvec, ids, len(ids))
	if err != nil {
		return nil, err
	}
	sim := make(map[string]float64, len(scored))
	for _, h := range scored {
		sim[h.ID] = h.Score
	}
	var out []graph.Hit
	for _, id := range ids {
		if s, ok := sim[id]; ok && len(out) < k {
			out = append(out, graph.Hit{ID: id, Score: s})
		}
	}
	return out, nil
}
