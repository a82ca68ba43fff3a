package retrieval

import (
	"cmp"
	"context"
	"slices"

	"golang.org/x/sync/errgroup"

	"github.com/stratarag/strata/internal/embedding"
	"github.com/stratarag/strata/internal/graph"
)

// hi ranks source chunks by fusing evidence channels at the level of documents: each channel
// ranks documents, and a document's score is the weighted reciprocal rank fusion of its ranks
// with offset docRRFK. The lexical channel (full-text search over chunk titles and texts, plus
// vectors as far as the embedder is trusted) counts fully; the others add smaller weights, so
// they reorder documents the question's words rank about equally and bring in documents it does
// not name at all. The offset is 1, not the 60 of chunk fusion: with 60, rank 1 and rank 10 of
// the lexical list differ by less than any channel's weight, which lets weak evidence outvote
// the question's own words. Weights were chosen on testdata/ and the multihop set together; the
// sensitivity table in docs/RETRIEVAL.md shows recall moving by a few points at most when they
// are halved or doubled.
const (
	docRRFK       = 1.0
	lexicalWeight = 1.0
	walkWeight    = 0.3  // documents sharing rare entities with the top lexical documents (local level)
	aboutWeight   = 0.3  // documents about entities the top lexical documents name (local level; docs/RETRIEVAL.md)
	localWeight   = 0.2  // chunks mentioning the seed entities (local level)
	globalWeight  = 0.05 // chunks mentioning members of the seeds' communities (global level)
	bridgeWeight  = 0.1  // chunks the relations on bridge paths were extracted from (bridge level)
	// lca ranks the chunks of its seeds' relations as hi ranks its bridge paths' chunks, at a
	// weight of its own (docs/RETRIEVAL.md, lca).
	lcaRelationWeight = 0.35
)

// Parameters of the walk from the top lexical documents over shared entities. Starting from
// more than the top two documents links mostly what the question is not about.
const (
	walkFrom         = 2
	walkMaxDocuments = 20 // entities in more documents are too common to link anything
	subjectBoost     = 3  // a link to the document about the entity (its title names it) counts this much more
)

// Parameters of the global level's evidence.
const (
	globalCommunities = 3  // communities whose members' chunks are gathered
	globalMembers     = 20 // members per query, the best connected first
	// Larger communities say too little about the question, and cost a read of every member. In
	// hi, the seeds' communities are many and the small ones specific (60); global mode has only
	// the communities its points cite, at one level, and takes bigger ones (500).
	hiMaxMembers     = 60
	globalMaxMembers = 500
)

// channel is one ranked list of evidence chunks; its documents rank by their best chunk.
type channel struct {
	weight float64
	chunks []graph.Chunk
}

// fuseDocuments ranks the documents of the channels by weighted reciprocal rank fusion of their
// per-channel ranks, plus the scores of named (documents the question names, see
// namedDocuments; nil for none), with the second document chosen by cov (see
// coverage.chooseSecond; nil: by score alone), and returns up to topK chunks: every document's
// best chunk before any second chunk (byDocument), a document's chunks in the order the
// channels list them (earlier channels first). The scores are the documents' fused scores, by
// chunk id.
func fuseDocuments(channels []channel, named map[string]float64, cov *coverage, topK int) ([]graph.Chunk, map[string]float64) {
	score := map[string]float64{}
	perDoc := map[string][]graph.Chunk{}
	seen := map[string]bool{}
	for _, ch := range channels {
		rank := map[string]int{}
		for _, c := range ch.chunks {
			if _, ok := rank[c.DocumentID]; !ok {
				rank[c.DocumentID] = len(rank)
				score[c.DocumentID] += ch.weight / (docRRFK + float64(rank[c.DocumentID]+1))
			}
			if !seen[c.ID] {
				seen[c.ID] = true
				perDoc[c.DocumentID] = append(perDoc[c.DocumentID], c)
			}
		}
	}
	for d, s := range named {
		if _, ok := perDoc[d]; ok {
			score[d] += s
		}
	}
	docs := make([]string, 0, len(score))
	for d := range score {
		docs = append(docs, d)
	}
	slices.SortFunc(docs, func(a, b string) int {
		return cmp.Or(cmp.Compare(score[b], score[a]), cmp.Compare(a, b))
	})
	if cov != nil {
		cov.chooseSecond(docs, score)
	}
	var ranked []graph.Chunk
	for _, d := range docs {
		ranked = append(ranked, perDoc[d]...)
	}
	ranked = byDocument(ranked)
	ranked = ranked[:min(len(ranked), topK)]
	chunkScore := make(map[string]float64, len(ranked))
	for _, c := range ranked {
		chunkScore[c.ID] = score[c.DocumentID]
	}
	return ranked, chunkScore
}

// channelDocuments returns the ids of the documents the channels' chunks belong to, each once,
// in channel order.
func channelDocuments(channels []channel) []string {
	var ids []string
	seen := map[string]bool{}
	for _, ch := range channels {
		for _, c := range ch.chunks {
			if !seen[c.DocumentID] {
				seen[c.DocumentID] = true
				ids = append(ids, c.DocumentID)
			}
		}
	}
	return ids
}

// lexicalChunks is the chunk ranking of naive mode: full-text search fused with vector search
// weighted as the embedder says, with the fused scores by chunk id.
func (e *Engine) lexicalChunks(ctx context.Context, question string, qvec []float32, k int) ([]graph.Chunk, map[string]float64, error) {
	hits, err := e.hybridSearch(ctx, graph.ChunkEmbedding, graph.ChunkText, question, qvec, k, embedding.PassageWeight(e.Embedder))
	if err != nil {
		return nil, nil, err
	}
	return e.chunksOf(ctx, hits)
}

// walkLinks returns the document links (DocumentLinks) of the chunks of each of the first
// walkFrom documents of the lexical ranking, best document first, asked concurrently.
func (e *Engine) walkLinks(ctx context.Context, lexical []graph.Chunk) ([][]graph.DocumentLink, error) {
	var sources [][]string // chunk ids per starting document, best document first
	docIndex := map[string]int{}
	for _, c := range lexical {
		i, ok := docIndex[c.DocumentID]
		if !ok {
			if len(sources) == walkFrom {
				continue
			}
			i = len(sources)
			docIndex[c.DocumentID] = i
			sources = append(sources, nil)
		}
		sources[i] = append(sources[i], c.ID)
	}
	links := make([][]graph.DocumentLink, len(sources))
	g, gctx := errgroup.WithContext(ctx)
	for i, from := range sources {
		g.Go(func() (err error) {
			links[i], err = e.Store.DocumentLinks(gctx, from, walkMaxDocuments)
			return err
		})
	}
	return links, g.Wait()
}

// walkChunks walks from the chunks of the top lexical documents over the entities they mention
// to the other documents mentioning them (links, from walkLinks), and ranks those documents by
// the links they share (walked), and apart from them, the documents about one of those entities
// (about: the links that lead to the document whose title names the entity, graph.Document.
// Subject, by the same weights).
// A link weighs 1/(documents-1) (rare entities say more), divided by the starting document's
// lexical rank (1, 2, …), times 1 + 1/(1+r) when the entity is the question's r-th entity
// candidate (relevant; the "guild" of "the guild that Edda Fenwick led" is among them), and, in
// walked, subjectBoost times more when it leads to the document whose title names the entity.
// Each document is represented by its first chunk naming its strongest link.
func (e *Engine) walkChunks(ctx context.Context, found [][]graph.DocumentLink, relevant map[string]int) (walked, about []graph.Chunk, err error) {
	var links []weightedLink
	var linked []string
	for rank, from := range found {
		for _, l := range from {
			if l.Documents < 2 {
				continue // only the starting document mentions it
			}
			w := 1 / float64(l.Documents-1) / float64(rank+1)
			if r, ok := relevant[l.EntityID]; ok {
				w *= 1 + 1/float64(r+1)
			}
			links = append(links, weightedLink{l, w})
			if !slices.Contains(linked, l.DocumentID) {
				linked = append(linked, l.DocumentID)
			}
		}
	}
	docs, err := e.Store.Documents(ctx, linked)
	if err != nil {
		return nil, nil, err
	}
	subject := make(map[string]string, len(docs))
	for _, d := range docs {
		if s := d.Subject(); s != "" {
			subject[d.ID] = graph.NormalizeID(s)
		}
	}
	var all, subjects linkRanking
	for _, l := range links {
		if subject[l.DocumentID] == l.EntityID {
			subjects.add(l)
			l.weight *= subjectBoost
		}
		all.add(l)
	}
	walkedIDs, aboutIDs := all.chunkIDs(), subjects.chunkIDs()
	// One read for both lists: the chunks of the about list are mostly those of walked.
	chunks, err := e.Store.Chunks(ctx, graph.UniqueIDs(append(slices.Clip(walkedIDs), aboutIDs...)))
	if err != nil {
		return nil, nil, err
	}
	byID := make(map[string]graph.Chunk, len(chunks))
	for _, c := range chunks {
		byID[c.ID] = c
	}
	pick := func(ids []string) []graph.Chunk {
		var out []graph.Chunk
		for _, id := range ids {
			if c, ok := byID[id]; ok {
				out = append(out, c)
			}
		}
		return out
	}
	return pick(walkedIDs), pick(aboutIDs), nil
}

// weightedLink is a document link of the walk with its weight.
type weightedLink struct {
	graph.DocumentLink
	weight float64
}

// linkRanking sums the weights of links by document, keeping each document's strongest link.
type linkRanking struct {
	score map[string]float64
	best  map[string]weightedLink
}

func (r *linkRanking) add(l weightedLink) {
	if r.score == nil {
		r.score, r.best = map[string]float64{}, map[string]weightedLink{}
	}
	r.score[l.DocumentID] += l.weight
	if l.weight > r.best[l.DocumentID].weight {
		r.best[l.DocumentID] = l
	}
}

// chunkIDs returns the chunk of each document's strongest link, best document first (by id on
// a tie).
func (r *linkRanking) chunkIDs() []string {
	ranked := make([]string, 0, len(r.score))
	for d := range r.score {
		ranked = append(ranked, d)
	}
	slices.SortFunc(ranked, func(a, b string) int { return cmp.Or(cmp.Compare(r.score[b], r.score[a]), cmp.Compare(a, b)) })
	ids := make([]string, len(ranked))
	for i, d := range ranked {
		ids[i] = r.best[d].ChunkID
	}
	return ids
}

// bridgeChunks returns the chunks the relations on the bridge paths were extracted from, in path
// order.
func (e *Engine) bridgeChunks(ctx context.Context, steps []graph.Relation) ([]graph.Chunk, error) {
	keys := make([]graph.RelationKey, 0, len(steps))
	for _, st := range steps {
		keys = append(keys, st.Key())
	}
	rels, err := e.Store.Relations(ctx, keys)
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, r := range rels {
		for _, id := range r.ChunkIDs {
			if !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
	}
	return e.Store.Chunks(ctx, ids)
}

// globalChunks gathers the chunks naming the best connected members of the first few of
// communities (skipping ones of more than maxMembers), other than the seeds
// themselves: the global level's evidence is what the communities are about beyond the seeds.
func (e *Engine) globalChunks(ctx context.Context, qvec []float32, communities []graph.Community, maxMembers int, seeds []string, topK int) ([]graph.Chunk, error) {
	var used []string
	for _, c := range communities {
		if len(used) == globalCommunities {
			break
		}
		if c.Size <= maxMembers {
			used = append(used, c.ID)
		}
	}
	if len(used) == 0 {
		return nil, nil
	}
	found, err := e.Store.CommunityEntities(ctx, used)
	if err != nil {
		return nil, err
	}
	var members []graph.Entity
	for _, id := range used {
		for _, en := range found[id] {
			if en.Layer == 0 && !slices.Contains(seeds, en.ID) {
				members = append(members, en)
			}
		}
	}
	if len(members) == 0 {
		return nil, nil
	}
	slices.SortStableFunc(members, func(a, b graph.Entity) int { return cmp.Or(cmp.Compare(b.Degree, a.Degree), cmp.Compare(a.ID, b.ID)) })
	ids := make([]string, 0, globalMembers)
	for _, en := range members {
		if len(ids) < globalMembers && !slices.Contains(ids, en.ID) {
			ids = append(ids, en.ID)
		}
	}
	lc, err := e.Store.ExpandLocal(ctx, ids, graph.LocalOptions{TopChunks: topK * 3})
	if err != nil {
		return nil, err
	}
	return rankedChunks(qvec, lc.Chunks), nil
}

// rankedChunks orders chunks found through entities by the share of the entities they mention
// plus their similarity to the question (see chunkSimilarityWeight).
func rankedChunks(qvec []float32, found []graph.ScoredChunk) []graph.Chunk {
	maxHits := 1.0
	for _, c := range found {
		maxHits = max(maxHits, c.Score)
	}
	scores := make(map[string]float64, len(found))
	chunks := make([]graph.Chunk, len(found))
	for i, c := range found {
		chunks[i] = c.Chunk
		scores[c.ID] = chunkScore(qvec, c, maxHits)
	}
	slices.SortStableFunc(chunks, func(a, b graph.Chunk) int { return cmp.Compare(scores[b.ID], scores[a.ID]) })
	return chunks
}

// chunkScore is the score rankedChunks orders by: entities mentioned, scaled by the most any
// chunk mentions, plus weighted similarity to the question.
func chunkScore(qvec []float32, c graph.ScoredChunk, maxHits float64) float64 {
	return c.Score/maxHits + chunkSimilarityWeight*embedding.Cosine(qvec, c.Embedding)
}
