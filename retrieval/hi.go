package retrieval

import (
	"context"
	"slices"
	"strings"
	"time"

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
// fuseDocuments): local the seeds' chunks and the documents sharing rare entities with the top
// lexical ones, global the chunks of the communities' other members, bridge the chunks of the
// path relations; the ablations drop the channels of the levels they drop.
func (e *Engine) hi(ctx context.Context, question string, qvec []float32, opt Options, res *Result) error {
	want := opt.Mode.levels()
	t := time.Now()
	lap := func(name string) { res.TimingsMS[name] = ms(time.Since(t)); t = time.Now() }
	candidates, err := e.hybridSearch(ctx, graph.EntityEmbedding, graph.EntityText, question, qvec, opt.Entities*hiOversample, 1)
	if err != nil {
		return err
	}
	rank := make(map[string]int, len(candidates))
	score := make(map[string]float64, len(candidates))
	for i, h := range candidates {
		rank[h.ID], score[h.ID] = i, h.Score
	}
	seeds := make([]string, 0, opt.Entities)
	for _, h := range candidates[:min(len(candidates), opt.Entities)] {
		seeds = append(seeds, h.ID)
	}
	lc, err := e.Store.ExpandLocal(ctx, seeds, graph.LocalOptions{
		TopChunks:      opt.TopK * 3,
		TopCommunities: hiCommunities * 5, // nested levels repeat seed sets; distinct ones are picked below
	})
	if err != nil {
		return err
	}
	communities := distinctCommunities(lc.Communities, hiCommunities)
	lap("entities")

	lexical, _, err := e.lexicalChunks(ctx, question, qvec, opt.TopK*4)
	if err != nil {
		return err
	}
	channels := []channel{{lexicalWeight, lexical}}
	lap("lexical")
	if want.local {
		walked, err := e.walkChunks(ctx, lexical, rank)
		if err != nil {
			return err
		}
		channels = append(channels, channel{walkWeight, walked}, channel{localWeight, rankedChunks(qvec, lc.Chunks)})
		lap("walk")
	}
	if want.global {
		comms := make([]graph.Community, len(communities))
		for i, c := range communities {
			comms[i] = c.Community
		}
		found, err := e.globalChunks(ctx, qvec, comms, hiMaxMembers, seeds, opt.TopK)
		if err != nil {
			return err
		}
		channels = append(channels, channel{globalWeight, found})
		lap("members")
	}
	var paths []PathItem
	names, entities := entityItems(lc.Entities, score)
	if want.bridge {
		steps, err := e.bridge(ctx, communities, rank)
		if err != nil {
			return err
		}
		if paths, err = e.pathItems(ctx, names, steps); err != nil {
			return err
		}
		found, err := e.bridgeChunks(ctx, steps)
		if err != nil {
			return err
		}
		channels = append(channels, channel{bridgeWeight, found})
		lap("paths")
	}
	chunkItems, err := e.fuseDocuments(ctx, channels, opt.TopK)
	if err != nil {
		return err
	}

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

// distinctCommunities keeps communities in rank order, skipping one whose seeds are exactly those
// of a community already kept: a community and its nested copies one level up or down would
// otherwise fill the global level with the same knowledge.
func distinctCommunities(ranked []graph.ScoredCommunity, limit int) []graph.ScoredCommunity {
	var out []graph.ScoredCommunity
	seen := map[string]bool{}
	for _, c := range ranked {
		key := strings.Join(c.Seeds, "\x00")
		if seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, c)
		if len(out) == limit {
			break
		}
	}
	return out
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
