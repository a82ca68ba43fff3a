package retrieval

import (
	"context"
	"slices"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/stratarag/strata/internal/graph"
)

// Parameters of HiRAG's three-level retrieval (the hi mode and its ablations).
const (
	hiEntities      = 20    // n: entities of the local level
	hiOversample    = 10    // candidates searched per local entity
	hiKeyEntities   = 10    // m: key entities per community for the bridge level
	hiCommunities   = 10    // communities of the global level, at most
	hiMaxHops       = 4     // longest bridge path
	hiMaxPairs      = 40    // bridge path requests per query, at most
	hiContextTokens = 65000 // 12 500 + 12 500 + 20 000 + 20 000
)

// Shares of the context budget per section in hi mode (HiRAG: 12 500 / 12 500 / 20 000 / 20 000).
const (
	hiBackgroundShare = 12500.0 / hiContextTokens
	hiPathShare       = 12500.0 / hiContextTokens
	hiEntityShare     = 20000.0 / hiContextTokens
	hiChunkShare      = 20000.0 / hiContextTokens
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
		timings    [5]time.Duration // entities, lexical, walk, members, paths
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
		walked, about, members, bridged []graph.Chunk
		paths                           []PathItem
	)
	g, gctx = errgroup.WithContext(ctx)
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

	total := float64(opt.MaxContextTokens)
	b := newContextBuilder(e.Tokenizer)
	if want.global {
		var items []CommunityItem
		for _, c := range communities {
			if c.Title != "" || c.Summary != "" {
				items = append(items, CommunityItem{ID: c.ID, Level: c.Level, Title: c.Title, Summary: c.Summary, Rating: c.Rating})
			}
		}
		res.Context.Communities = b.communities("Backgrounds", items, int(total*hiBackgroundShare))
	}
	if want.bridge {
		res.Context.Paths = b.paths("Reasoning Path", paths, int(total*hiPathShare))
	}
	if want.local {
		res.Context.Entities = b.entities("Detail Entity Information", entities, int(total*hiEntityShare))
	}
	res.Context.Chunks = b.chunks("Source Documents", chunkItems, int(total*hiChunkShare))
	res.ContextText = b.String()
	return nil
}

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
