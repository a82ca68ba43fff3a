package cypher

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/mentionindex"
)

// ExpandLocal implements graph.Store with a single statement (expand_local.cypher) that gathers
// chunks, communities and inside/outside relations of the seeds, ranked and capped on the
// server. A resident store answers from its copies, as the statement would
// (residentExpandLocal).
func (s *Store) ExpandLocal(ctx context.Context, entityIDs []string, opt graph.LocalOptions) (graph.LocalContext, error) {
	if err := ctx.Err(); err != nil {
		return graph.LocalContext{}, err
	}
	if len(entityIDs) == 0 {
		return graph.LocalContext{}, nil
	}
	if s.resident {
		lc, ok, err := s.residentExpandLocal(ctx, entityIDs, opt)
		if err != nil {
			return graph.LocalContext{}, fmt.Errorf("cypher: expand local: %w", err)
		}
		if ok {
			return lc, nil
		}
	}
	cap0 := func(n int) int64 { return int64(max(n, 0)) }
	rows, err := s.readRows(ctx, qExpandLocal, map[string]any{
		"ids":                 graph.UniqueIDs(entityIDs),
		"topChunks":           cap0(opt.TopChunks),
		"topCommunities":      cap0(opt.TopCommunities),
		"distinctCommunities": opt.DistinctCommunities,
		"topInsideRels":       cap0(opt.TopInsideRels),
		"topOutsideRels":      cap0(opt.TopOutsideRels),
	})
	if err != nil {
		return graph.LocalContext{}, fmt.Errorf("cypher: expand local: %w", err)
	}
	if len(rows) == 0 {
		return graph.LocalContext{}, nil
	}
	lc, err := decodeLocal(rows[0], entityIDs)
	if err != nil {
		return graph.LocalContext{}, fmt.Errorf("cypher: expand local: %w", err)
	}
	return lc, nil
}

// residentExpandLocal answers ExpandLocal as expand_local.cypher does, from a resident store's
// copies: the seeds from the entity records and vectors; the chunks that mention them from the
// mentions, ranked by how many seeds they mention, then id, the chunk records and vectors from
// theirs; the communities from the memberships and community records, the relations from the
// relations (residentlocal.go). ok is false when there are no vector copies (an index is
// missing), and the statement answers.
func (s *Store) residentExpandLocal(ctx context.Context, entityIDs []string, opt graph.LocalOptions) (lc graph.LocalContext, ok bool, err error) {
	_, chunkDim, ok, err := s.residentDims(ctx)
	if err != nil || !ok {
		return lc, false, err
	}
	asked := graph.UniqueIDs(entityIDs)
	seeds, ok, err := s.residentEntityRecords(ctx, asked)
	if err != nil || !ok {
		return lc, false, err
	}
	ids := make([]string, len(seeds))
	for i, e := range seeds {
		ids[i] = e.ID
	}
	// Empty lists as decodeLocal leaves them, not nil.
	lc.Entities, lc.Chunks = seeds, []graph.ScoredChunk{}
	if lc.Communities, err = s.residentLocalCommunities(ctx, ids, opt.TopCommunities, opt.DistinctCommunities); err != nil {
		return lc, false, err
	}
	if lc.InsideRelations, lc.OutsideRelations, err = s.residentLocalRelations(ctx, ids, asked, opt.TopInsideRels, opt.TopOutsideRels); err != nil {
		return lc, false, err
	}
	var hits []mentionindex.ChunkHits
	if err := s.withMentions(ctx, func(ix *mentionindex.Index) { hits = ix.TopChunks(ids, opt.TopChunks) }); err != nil {
		return lc, false, err
	}
	if len(hits) == 0 {
		return lc, true, nil
	}
	chunkIDs := make([]string, len(hits))
	for i, h := range hits {
		chunkIDs[i] = h.ChunkID
	}
	chunks, err := s.Chunks(ctx, chunkIDs)
	if err != nil {
		return lc, false, err
	}
	byID := make(map[string]graph.Chunk, len(chunks))
	for _, c := range chunks {
		byID[c.ID] = c
	}
	err = s.withResidentVectors(ctx, graph.ChunkEmbedding, chunkDim, func(v *residentVectors) {
		for _, h := range hits {
			if c, ok := byID[h.ChunkID]; ok {
				c.Embedding = v.embedding(c.ID)
				lc.Chunks = append(lc.Chunks, graph.ScoredChunk{Chunk: c, Score: float64(h.Hits)})
			}
		}
	})
	return lc, err == nil, err
}

// residentDims returns the dimensions of the entity and chunk vector indexes, and whether both
// exist, which the copies of a resident store need: without an index there is no copy, and the
// embeddings have to come from the database.
func (s *Store) residentDims(ctx context.Context) (entityDim, chunkDim int, ok bool, err error) {
	dims, err := s.vectorDims(ctx, map[graph.VectorIndex]int{graph.EntityEmbedding: 0, graph.ChunkEmbedding: 0}, false)
	if err != nil {
		return 0, 0, false, err
	}
	entityDim, eok := dims[graph.EntityEmbedding]
	chunkDim, cok := dims[graph.ChunkEmbedding]
	return entityDim, chunkDim, eok && cok, nil
}

// decodeLocal reads the one row of expand_local.cypher and puts the seeds back in asked order.
func decodeLocal(row map[string]any, asked []string) (graph.LocalContext, error) {
	f := &fields{m: row}
	var lc graph.LocalContext
	seeds, err := decodeList(f, "entities", decodeEntity)
	if err != nil {
		return lc, err
	}
	byID := make(map[string]graph.Entity, len(seeds))
	for _, e := range seeds {
		byID[e.ID] = e
	}
	for _, id := range graph.UniqueIDs(asked) {
		if e, ok := byID[id]; ok {
			lc.Entities = append(lc.Entities, e)
		}
	}
	if lc.Chunks, err = decodeList(f, "chunks", func(m map[string]any) (graph.ScoredChunk, error) {
		c, err := decodeChunk(m)
		g := fields{m: m}
		return graph.ScoredChunk{Chunk: c, Score: g.float("score")}, firstErr(err, g.err)
	}); err != nil {
		return lc, err
	}
	if lc.Communities, err = decodeList(f, "communities", func(m map[string]any) (graph.ScoredCommunity, error) {
		c, err := decodeCommunity(m)
		g := fields{m: m}
		seeds := g.strs("seeds")
		slices.Sort(seeds)
		return graph.ScoredCommunity{Community: c, Score: g.float("score"), Seeds: seeds}, firstErr(err, g.err)
	}); err != nil {
		return lc, err
	}
	if lc.InsideRelations, err = decodeList(f, "insideRelations", decodeRelation); err != nil {
		return lc, err
	}
	lc.OutsideRelations, err = decodeList(f, "outsideRelations", decodeRelation)
	return lc, err
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// DocumentLinks implements graph.Store with document_links.cypher, or on a resident store from
// the in-memory mentions (mentions.go).
func (s *Store) DocumentLinks(ctx context.Context, chunkIDs []string, maxDocuments int) ([]graph.DocumentLink, error) {
	ids := graph.UniqueIDs(chunkIDs)
	if len(ids) == 0 || maxDocuments < 1 {
		return nil, ctx.Err()
	}
	if s.resident || s.snapshotDir != "" {
		links, err := s.residentDocumentLinks(ctx, ids, maxDocuments)
		if err == nil {
			return links, nil
		}
		if !errors.Is(err, errNoSnapshot) {
			return nil, fmt.Errorf("cypher: document links: %w", err)
		}
	}
	rows, err := s.readRows(ctx, qDocumentLinks, map[string]any{"chunkIds": ids, "maxDocuments": int64(maxDocuments)})
	if err != nil {
		return nil, fmt.Errorf("cypher: document links: %w", err)
	}
	links := make([]graph.DocumentLink, 0, len(rows))
	for _, row := range rows {
		f := fields{m: row}
		l := graph.DocumentLink{EntityID: f.str("entityId"), DocumentID: f.str("documentId"), ChunkID: f.str("chunkId"), Documents: int(f.int("documents"))}
		if f.err != nil {
			return nil, fmt.Errorf("cypher: document links: %w", f.err)
		}
		links = append(links, l)
	}
	return links, nil
}
