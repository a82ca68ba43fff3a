package embedded

import (
	"context"
	"database/sql"

	"github.com/stratarag/strata/internal/graph"
)

// ExpandLocal gathers the neighbourhood of the seed entities (GraphRAG local search) from one
// snapshot of the store. Seeds that do not exist are ignored, repeated seeds count once.
func (s *Store) ExpandLocal(ctx context.Context, entityIDs []string, opt graph.LocalOptions) (graph.LocalContext, error) {
	const what = "expand local context"
	var lc graph.LocalContext
	seeds := graph.UniqueIDs(entityIDs)
	if len(seeds) == 0 {
		return lc, ctxErr(ctx, what)
	}
	err := s.read(ctx, what, func(tx *sql.Tx) error {
		found, err := queryAll(ctx, s.cached(tx), scanEntity, `SELECT `+entityCols("e")+` FROM entities e WHERE e.id IN (SELECT value FROM json_each(?))`,
			encodeStrings(seeds))
		if err != nil {
			return err
		}
		byID := make(map[string]graph.Entity, len(found))
		for _, e := range found {
			byID[e.ID] = e
		}
		var ids []string
		for _, id := range seeds {
			if e, ok := byID[id]; ok {
				lc.Entities = append(lc.Entities, e)
				ids = append(ids, id)
			}
		}
		if len(ids) == 0 {
			return nil
		}
		set := encodeStrings(ids)

		if opt.TopChunks > 0 {
			lc.Chunks, err = queryAll(ctx, s.cached(tx), scanScoredChunk, expandChunksSQL(), set, opt.TopChunks)
			if err != nil {
				return err
			}
		}

		if opt.TopCommunities > 0 {
			lc.Communities, err = queryAll(ctx, s.cached(tx), scanScoredCommunity, expandCommunitiesSQL(s.version), set, opt.TopCommunities)
			if err != nil {
				return err
			}
		}

		// A relation is inside when both ends are seeds and outside when exactly one is; the
		// other end of an outside relation must exist.
		relations := func(inside bool, limit int) ([]graph.Relation, error) {
			if limit <= 0 {
				return nil, nil
			}
			return queryAll(ctx, s.cached(tx), scanRelation, expandRelationsSQL(), set, inside, limit)
		}
		if lc.InsideRelations, err = relations(true, opt.TopInsideRels); err != nil {
			return err
		}
		lc.OutsideRelations, err = relations(false, opt.TopOutsideRels)
		return err
	})
	return lc, err
}

// DocumentLinks implements graph.Store: mentions of the chunks' entities, grouped by entity and
// document, for entities mentioned in few enough documents.
func (s *Store) DocumentLinks(ctx context.Context, chunkIDs []string, maxDocuments int) ([]graph.DocumentLink, error) {
	const what = "document links"
	ids := graph.UniqueIDs(chunkIDs)
	if len(ids) == 0 || maxDocuments < 1 {
		return nil, ctxErr(ctx, what)
	}
	var links []graph.DocumentLink
	err := s.read(ctx, what, func(tx *sql.Tx) error {
		if s.resident {
			mi, err := s.mentionIndex(ctx, tx)
			if err != nil {
				return err
			}
			if mi != nil {
				links = mi.documentLinks(ids, maxDocuments)
				return nil
			}
		}
		var err error
		links, err = queryAll(ctx, s.cached(tx), func(sc scanner, _ ...any) (graph.DocumentLink, error) {
			var l graph.DocumentLink
			err := sc.Scan(&l.EntityID, &l.DocumentID, &l.ChunkID, &l.Documents)
			return l, err
		}, documentLinksSQL(), encodeStrings(ids), maxDocuments)
		return err
	})
	return links, err
}
