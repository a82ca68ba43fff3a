package retrieval

import (
	"context"
	"math"
	"slices"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/tokenizer"
)

// Parameters of HiRAG's three-level retrieval (the hi mode and its ablations).
const (
	hiEntities    = 20 // n: entities of the local level
	hiOversample  = 10 // candidates searched per local entity
	hiKeyEntities = 10 // m: key entities per community for the bridge level
	hiCommunities = 10 // communities of the global level, at most
	hiMaxHops     = 4  // longest bridge path
	hiMaxPairs    = 40 // bridge path requests per query, at most
)

// hi is HiRAG's three-level retrieval. Local level: the top-n entities over all layers among
// n×10 candidates. Global level: the communities containing them, ranked by how many they
// contain, then rating. Bridge level: per community its top-m candidate entities; shortest paths
// between consecutive key entities (over RELATED and SUMMARIZED_BY) give the triples that join
// the local and global knowledge. Each level also contributes source chunks as evidence (see
// fuseDocuments): local the seeds' chunks, the documents sharing rare entities with the top
// lexical ones and the documents about the entities the question names (namedDocuments), global
// the chunks of the communities' other members, bridge the chunks of the path relations; the
// ablations drop the channels of the levels they drop.
func (e *Engine) hi(ctx context.Context, question string, qvec []float32, opt Options, res *Result) error {
	want := opt.Mode.levels()
	// The levels run as two rounds of concurrent store calls: first the entity candidates with
	// their neighbourhood next to the lexical chunks with the document links of the walk, then
	// the channels that need both (walk ranking, members, bridge paths). Each channel's time is
	// its own; they overlap, so they add up to more than retrieve.
	var (
		candidates []graph.Hit
		lc         graph.LocalContext
		lexical    []graph.Chunk
		links      [][]graph.DocumentLink
		timings    [6]time.Duration // entities, lexical, walk, members, paths, ppr
	)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		t := time.Now()
		defer func() { timings[0] = time.Since(t) }()
		var err error
		candidates, err = e.hybridSearch(gctx, graph.EntityEmbedding, graph.EntityText, question, qvec, opt.Entities*hiOversample, 1)
		if err != nil {
			return err
		}
		lc, err = e.Store.ExpandLocal(gctx, hiSeeds(candidates, opt.Entities), graph.LocalOptions{
			TopChunks:           opt.TopK * 3,
			TopCommunities:      hiCommunities,
			DistinctCommunities: true, // nested levels repeat seed sets
		})
		return err
	})
	g.Go(func() error {
		t := time.Now()
		var err error
		if lexical, _, err = e.lexicalChunks(gctx, question, qvec, opt.TopK*4); err != nil {
			return err
		}
		timings[1] = time.Since(t)
		if want.local {
			t = time.Now()
			links, err = e.walkLinks(gctx, lexical)
			timings[2] = time.Since(t)
		}
		return err
	})
	if err := g.Wait(); err != nil {
		return err
	}
	rank := make(map[string]int, len(candidates))
	score := make(map[string]float64, len(candidates))
	for i, h := range candidates {
		rank[h.ID], score[h.ID] = i, h.Score
	}
	seeds := hiSeeds(candidates, opt.Entities)
	communities := lc.Communities
	names, entities := entityItems(lc.Entities, score)

	var (
		walked, about, members, bridged, walkedPPR []graph.Chunk
		paths                                      []PathItem
	)
	g, gctx = errgroup.WithContext(ctx)
	// The PPR channel (optional, Options.PPRWeight): chunks ranked by a walk from the same
	// seeds as the ppr mode's. Off by default: offline it cost hp and multihop recall at every
	// weight measured (docs/RETRIEVAL.md).
	if want.local && opt.PPRWeight > 0 {
		g.Go(func() error {
			t := time.Now()
			defer func() { timings[5] = time.Since(t) }()
			seeds, err := e.pprSeeds(gctx, question, lexical, pprFacts)
			if err != nil {
				return err
			}
			walkedPPR, _, err = e.pprChunks(gctx, seeds, opt.TopK*4)
			return err
		})
	}
	if want.local {
		g.Go(func() error {
			t := time.Now()
			defer func() { timings[2] += time.Since(t) }()
			var err error
			walked, about, err = e.walkChunks(gctx, links, rank)
			return err
		})
	}
	if want.global {
		g.Go(func() error {
			t := time.Now()
			defer func() { timings[3] = time.Since(t) }()
			comms := make([]graph.Community, len(communities))
			for i, c := range communities {
				comms[i] = c.Community
			}
			var err error
			members, err = e.globalChunks(gctx, qvec, comms, hiMaxMembers, seeds, opt.TopK)
			return err
		})
	}
	if want.bridge {
		g.Go(func() error {
			t := time.Now()
			defer func() { timings[4] = time.Since(t) }()
			steps, err := e.bridge(gctx, communities, rank)
			if err != nil {
				return err
			}
			// pathItems and bridgeChunks are independent lookups of the same steps.
			pg, pctx := errgroup.WithContext(gctx)
			pg.Go(func() (err error) {
				paths, err = e.pathItems(pctx, names, steps)
				return err
			})
			pg.Go(func() (err error) {
				bridged, err = e.bridgeChunks(pctx, steps)
				return err
			})
			return pg.Wait()
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	res.TimingsMS["entities"] = ms(timings[0])
	res.TimingsMS["lexical"] = ms(timings[1])
	// The channels in a fixed order: fuseDocuments lists a document's chunks by channel order.
	channels := []channel{{lexicalWeight, lexical}}
	if want.local {
		channels = append(channels, channel{walkWeight, walked}, channel{localWeight, rankedChunks(qvec, lc.Chunks)}, channel{aboutWeight, about})
		res.TimingsMS["walk"] = ms(timings[2])
		if opt.PPRWeight > 0 {
			channels = append(channels, channel{opt.PPRWeight, walkedPPR})
			res.TimingsMS["ppr"] = ms(timings[5])
		}
	}
	if want.global {
		channels = append(channels, channel{globalWeight, members})
		res.TimingsMS["members"] = ms(timings[3])
	}
	if want.bridge {
		channels = append(channels, channel{bridgeWeight, bridged})
		res.TimingsMS["paths"] = ms(timings[4])
	}
	// One lookup of every candidate document serves the question's named subjects and the
	// titles of the chunks kept.
	docs, err := e.Store.Documents(ctx, channelDocuments(channels))
	if err != nil {
		return err
	}
	var named map[string]float64
	if want.local {
		named = namedDocuments(question, docs, lexical)
		for id, s := range metadataDocuments(question, docs) {
			if named == nil {
				named = map[string]float64{}
			}
			named[id] += s
		}
	}
	titles := make(map[string]string, len(docs))
	for _, d := range docs {
		titles[d.ID] = d.Title
	}
	ranked, scores := fuseDocuments(channels, named, newCoverage(question, lexical, titles), opt.TopK)
	chunkItems := itemsOf(ranked, scores, docs)

	var backgrounds []CommunityItem
	if want.global {
		for _, c := range communities {
			if c.Title != "" || c.Summary != "" {
				backgrounds = append(backgrounds, CommunityItem{ID: c.ID, Level: c.Level, Title: c.Title, Summary: c.Summary, Rating: c.Rating})
			}
		}
	}
	e.hiContext(question, opt, hiSections{backgrounds, paths, entities, chunkItems}, want, res)
	return nil
}

// Layout of hi's context. The source chunks are the evidence every level ranks, so they are
// budgeted first: the first hiFullShare of them whole, the others by their excerpt (the passage
// that matches the question), so that every ranked document stays in view at a fraction of its
// tokens. The graph sections (the global level's backgrounds, the bridge level's reasoning
// paths, the local level's entities) then get at most hiGraphRatio tokens per token of source
// text, split between the levels present in HiRAG's proportions (12 500 / 12 500 / 20 000): they
// restate and connect what the sources hold, so they grow and shrink with them instead of
// taking a fixed share whatever the sources need.
const (
	hiFullShare  = 0.5
	hiGraphRatio = 1.0 / 3
)

// HiRAG's proportions between the graph sections.
const (
	hiBackgroundWeight = 12500.0
	hiPathWeight       = 12500.0
	hiEntityWeight     = 20000.0
)

// hiSections are the items of hi's context sections, in rank order.
type hiSections struct {
	backgrounds []CommunityItem
	paths       []PathItem
	entities    []EntityItem
	chunks      []ChunkItem
}

// hiContext writes hi's context (see hiFullShare) in HiRAG's section order (backgrounds,
// reasoning paths, entities, sources), and sets res's context items, text and budget.
func (e *Engine) hiContext(question string, opt Options, s hiSections, want levels, res *Result) {
	total := opt.MaxContextTokens
	sources := newContextBuilder(e.Tokenizer)
	full := int(math.Ceil(hiFullShare * float64(opt.TopK)))
	budget := int(float64(total) / (1 + hiGraphRatio))
	res.Context.Chunks = sources.chunks("Source Documents", excerpts(e.Tokenizer, question, s.chunks, full, budget), budget)
	sources.tag("sources")

	weight := 0.0
	for _, w := range []struct {
		on bool
		w  float64
	}{{want.global, hiBackgroundWeight}, {want.bridge, hiPathWeight}, {want.local, hiEntityWeight}} {
		if w.on {
			weight += w.w
		}
	}
	graph := min(hiGraphRatio*float64(sources.spent()), float64(total-sources.spent()))
	share := func(w float64) int { return max(0, int(graph*w/weight)) }
	b := newContextBuilder(e.Tokenizer)
	if want.global {
		res.Context.Communities = b.communities("Backgrounds", s.backgrounds, share(hiBackgroundWeight))
		b.tag("global")
	}
	if want.bridge {
		res.Context.Paths = b.paths("Reasoning Path", s.paths, share(hiPathWeight))
		b.tag("bridge")
	}
	if want.local {
		res.Context.Entities = b.entities("Detail Entity Information", s.entities, share(hiEntityWeight))
		b.tag("local")
	}
	b.append(sources)
	res.ContextText = b.String()
	res.Budget = b.budget(total)
}

// excerpts returns items with every chunk after the first full, and any of those whose whole
// text would leave no room for an excerpt of each one after it within budget tokens, written as
// its excerpt (see excerpt): with long chunks or a small budget, every ranked document stays in
// view rather than the last ones falling out.
func excerpts(tok *tokenizer.Tokenizer, question string, items []ChunkItem, full, budget int) []ChunkItem {
	words := questionWords(question)
	out := slices.Clone(items)
	used := 0
	for i := range out {
		whole := out[i].tokens
		if whole <= 0 {
			whole = tok.Count(out[i].Text)
		}
		whole += chunkHeaderTokens
		if i < full && used+whole+(len(out)-i-1)*(excerptTokens+chunkHeaderTokens) <= budget {
			used += whole
			continue
		}
		text, n := excerpt(tok, out[i].Text, out[i].tokens, words, excerptTokens)
		if text != strings.TrimSpace(out[i].Text) {
			out[i].Text, out[i].tokens, out[i].Excerpt = text, n, true
		}
		used += n + chunkHeaderTokens
	}
	return out
}

// chunkHeaderTokens is about what a chunk's header line costs ([doc:… chunk:…] and its title),
// for planning the sources section before writing it.
const chunkHeaderTokens = 30

// hiSeeds returns the ids of the first n candidates: the local level's entities.
func hiSeeds(candidates []graph.Hit, n int) []string {
	seeds := make([]string, 0, n)
	for _, h := range candidates[:min(len(candidates), n)] {
		seeds = append(seeds, h.ID)
	}
	return seeds
}

// bridge picks the top-m key entities of each community (by candidate rank), chains them in
// community order, and returns the steps of the shortest paths between consecutive ones, each
// relation once.
func (e *Engine) bridge(ctx context.Context, communities []graph.ScoredCommunity, rank map[string]int) ([]graph.Relation, error) {
	var keys []string
	for _, c := range communities {
		members := slices.Clone(c.Seeds)
		slices.SortStableFunc(members, func(a, b string) int { return rank[a] - rank[b] })
		for _, id := range members[:min(len(members), hiKeyEntities)] {
			if len(keys) == 0 || keys[len(keys)-1] != id {
				keys = append(keys, id)
			}
		}
	}
	var reqs []graph.PathRequest
	asked := map[graph.RelationKey]bool{}
	for i := 0; i+1 < len(keys) && len(reqs) < hiMaxPairs; i++ {
		k := graph.NewRelationKey(keys[i], keys[i+1])
		if k.Source == k.Target || asked[k] {
			continue
		}
		asked[k] = true
		reqs = append(reqs, graph.PathRequest{Source: keys[i], Target: keys[i+1]})
	}
	if len(reqs) == 0 {
		return nil, nil
	}
	found, err := e.Store.ShortestPaths(ctx, reqs, hiMaxHops)
	if err != nil {
		return nil, err
	}
	var steps []graph.Relation
	seen := map[graph.RelationKey]bool{}
	for _, p := range found {
		for _, st := range p.Steps {
			k := graph.NewRelationKey(st.From, st.To)
			if seen[k] {
				continue
			}
			seen[k] = true
			steps = append(steps, graph.Relation{Source: st.From, Target: st.To, Description: st.Description, Weight: st.Weight})
		}
	}
	return steps, nil
}

// pathItems names the endpoints of path steps for the context.
func (e *Engine) pathItems(ctx context.Context, names map[string]string, steps []graph.Relation) ([]PathItem, error) {
	if err := e.addNames(ctx, names, steps); err != nil {
		return nil, err
	}
	items := make([]PathItem, len(steps))
	for i, r := range steps {
		items[i] = PathItem{Source: nameOr(names, r.Source), Target: nameOr(names, r.Target), Description: r.Description, Weight: r.Weight}
	}
	return items, nil
}
