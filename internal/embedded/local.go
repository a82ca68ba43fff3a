package embedded

import (
	"context"
	"database/sql"
	"slices"
	"strings"

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
			lc.Chunks, err = queryAll(ctx, s.cached(tx), scanScoredChunk, expandChunksSQL(s.version), set, opt.TopChunks)
			if err != nil {
				return err
			}
		}

		if opt.TopCommunities > 0 && opt.DistinctCommunities {
			if lc.Communities, err = s.distinctCommunities(ctx, tx, set, opt.TopCommunities); err != nil {
				return err
			}
		} else if opt.TopCommunities > 0 {
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

// distinctCommunities is ExpandLocal's communities with DistinctCommunities: it ranks every
// community holding seeds from ids, counts and ratings alone, and reads whole rows only for the
// top k with distinct seeds.
func (s *Store) distinctCommunities(ctx context.Context, tx *sql.Tx, seeds string, k int) ([]graph.ScoredCommunity, error) {
	type ranked struct {
		id    string
		n     float64
		seeds []string
	}
	rows, err := queryAll(ctx, s.cached(tx), func(sc scanner, _ ...any) (ranked, error) {
		var r ranked
		var list string
		if err := sc.Scan(&r.id, &r.n, &list); err != nil {
			return r, err
		}
		var err error
		if r.seeds, err = decodeStrings(list); err != nil {
			return r, err
		}
		slices.Sort(r.seeds)
		return r, nil
	}, rankCommunitiesSQL(s.version), seeds)
	if err != nil {
		return nil, err
	}
	var picked []ranked
	var ids []string
	seen := map[string]bool{}
	for _, r := range rows {
		key := strings.Join(r.seeds, "\x00")
		if seen[key] {
			continue
		}
		seen[key] = true
		picked, ids = append(picked, r), append(ids, r.id)
		if len(picked) == k {
			break
		}
	}
	comms, err := queryAll(ctx, s.cached(tx), scanCommunity,
		`SELECT `+communityCols("c")+` FROM communities c WHERE c.id IN (SELECT value FROM json_each(?))`, encodeStrings(ids))
	if err != nil {
		return nil, err
	}
	byID := make(map[string]graph.Community, len(comms))
	for _, c := range comms {
		byID[c.ID] = c
	}
	out := make([]graph.ScoredCommunity, 0, len(picked))
	for _, r := range picked {
		if c, ok := byID[r.id]; ok {
			out = append(out, graph.ScoredCommunity{Community: c, Score: r.n, Seeds: r.seeds})
		}
	}
	return out, nil
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
				links = mi.DocumentLinks(ids, maxDocuments)
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
