package retrieval

import (
	"context"
	"slices"

	"github.com/stratarag/strata/internal/graph"
)

// Shares of the context budget per section in local mode, after GraphRAG's local search (text
// units get half; reports a tenth; entities and relations the rest).
const (
	localReportShare   = 0.10
	localEntityShare   = 0.20
	localRelationShare = 0.20
	localChunkShare    = 0.50
)

// chunkSimilarityWeight blends the chunk's similarity to the question into the rank of chunks
// found through seed entities, which otherwise only counts the seeds a chunk names (scaled to
// [0,1] by the best count). With 20 seeds on a small graph most chunks name several, and the
// count alone stops telling them apart; the question's own words then decide (the weight's
// choice: docs/RETRIEVAL.md).
const chunkSimilarityWeight = 2.0

// local is GraphRAG-style local search: seed entities by vector and full-text search over entity
// descriptions, then their neighbourhood (chunks, communities, relations) in one store call.
func (e *Engine) local(ctx context.Context, question string, qvec []float32, opt Options, res *Result) error {
	seeds, err := e.hybridSearch(ctx, graph.EntityEmbedding, graph.EntityText, question, qvec, opt.Entities*2, 1)
	if err != nil {
		return err
	}
	seeds = seeds[:min(len(seeds), opt.Entities)]
	ids := make([]string, len(seeds))
	seedScore := make(map[string]float64, len(seeds))
	for i, h := range seeds {
		ids[i] = h.ID
		seedScore[h.ID] = h.Score
	}
	lc, err := e.Store.ExpandLocal(ctx, ids, graph.LocalOptions{
		TopChunks:      opt.TopK * 3,
		TopCommunities: 5,
		TopInsideRels:  opt.Entities * 3,
		TopOutsideRels: opt.Entities * 3,
	})
	if err != nil {
		return err
	}

	chunkItems, err := e.rankEntityChunks(ctx, qvec, lc.Chunks, opt.TopK)
	if err != nil {
		return err
	}
	names, entities := entityItems(lc.Entities, seedScore)
	rels := append(slices.Clone(lc.InsideRelations), lc.OutsideRelations...)
	if err := e.addNames(ctx, names, rels); err != nil {
		return err
	}
	var paths []PathItem
	for _, r := range rels {
		paths = append(paths, PathItem{Source: nameOr(names, r.Source), Target: nameOr(names, r.Target), Description: r.Description, Weight: r.Weight})
	}
	var communities []CommunityItem
	for _, c := range lc.Communities {
		if c.Title == "" && c.Summary == "" {
			continue // no report written yet
		}
		communities = append(communities, CommunityItem{ID: c.ID, Level: c.Level, Title: c.Title, Summary: c.Summary, Rating: c.Rating})
	}

	total := float64(opt.MaxContextTokens)
	b := newContextBuilder(e.Tokenizer)
	res.Context.Communities = b.communities("Reports", communities, int(total*localReportShare))
	res.Context.Entities = b.entities("Entities", entities, int(total*localEntityShare))
	res.Context.Paths = b.paths("Relationships", paths, int(total*localRelationShare))
	res.Context.Chunks = b.chunks("Sources", chunkItems, int(total*localChunkShare))
	res.ContextText = b.String()
	res.Budget = b.budget(opt.MaxContextTokens)
	return nil
}

// rankEntityChunks orders the chunks gathered through seed entities (rankedChunks) and keeps
// the first topK.
func (e *Engine) rankEntityChunks(ctx context.Context, qvec []float32, found []graph.ScoredChunk, topK int) ([]ChunkItem, error) {
	maxHits := 1.0
	for _, c := range found {
		maxHits = max(maxHits, c.Score)
	}
	scores := make(map[string]float64, len(found))
	for _, c := range found {
		scores[c.ID] = chunkScore(qvec, c, maxHits)
	}
	chunks := rankedChunks(qvec, found)
	return e.chunkItems(ctx, chunks[:min(len(chunks), topK)], scores)
}

// entityItems turns seed entities into context items and returns their names by id.
func entityItems(entities []graph.Entity, score map[string]float64) (map[string]string, []EntityItem) {
	names := make(map[string]string, len(entities))
	items := make([]EntityItem, len(entities))
	for i, en := range entities {
		names[en.ID] = en.Name
		items[i] = EntityItem{ID: en.ID, Name: en.Name, Type: en.Type, Description: en.Description, Layer: en.Layer, Score: score[en.ID]}
	}
	return names, items
}

// addNames looks up the display names of relation endpoints that are not seeds.
func (e *Engine) addNames(ctx context.Context, names map[string]string, rels []graph.Relation) error {
	var missing []string
	for _, r := range rels {
		for _, id := range []string{r.Source, r.Target} {
			if _, ok := names[id]; !ok && !slices.Contains(missing, id) {
				missing = append(missing, id)
			}
		}
	}
	if len(missing) == 0 {
		return nil
	}
	found, err := e.Store.Entities(ctx, missing)
	if err != nil {
		return err
	}
	for _, en := range found {
		names[en.ID] = en.Name
	}
	return nil
}

func nameOr(names map[string]string, id string) string {
	if n, ok := names[id]; ok {
		return n
	}
	return id
}
