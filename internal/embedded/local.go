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
		found, err := queryAll(ctx, tx, scanEntity, `SELECT `+entityCols("e")+` FROM entities e WHERE e.id IN (SELECT value FROM json_each(?))`,
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
			lc.Chunks, err = queryAll(ctx, tx, scanScoredChunk, `
				SELECT `+chunkCols("c")+`, count(*) AS n
				FROM mentions m JOIN chunks c ON c.id = m.chunk_id
				WHERE m.entity_id IN (SELECT value FROM json_each(?1))
				GROUP BY c.id ORDER BY n DESC, c.id LIMIT ?2`, set, opt.TopChunks)
			if err != nil {
				return err
			}
		}

		if opt.TopCommunities > 0 {
			lc.Communities, err = queryAll(ctx, tx, scanScoredCommunity, `
				SELECT `+communityCols("c")+`, count(*) AS n, json_group_array(cm.entity_id) AS seeds
				FROM community_members cm JOIN communities c ON c.id = cm.community_id
				WHERE cm.entity_id IN (SELECT value FROM json_each(?1))
				GROUP BY c.id ORDER BY n DESC, c.rating DESC, c.id LIMIT ?2`, set, opt.TopCommunities)
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
			return queryAll(ctx, tx, scanRelation, `
				WITH seeds (id) AS (SELECT value FROM json_each(?1)),
				touching (source, target) AS (
					SELECT source, target FROM relations WHERE source IN seeds
					UNION SELECT source, target FROM relations WHERE target IN seeds)
				SELECT `+relationCols("r")+`
				FROM touching t
				JOIN relations r ON r.source = t.source AND r.target = t.target
				JOIN entities a ON a.id = r.source
				JOIN entities b ON b.id = r.target
				WHERE (r.source IN seeds AND r.target IN seeds) = ?2
				ORDER BY r.weight DESC, r.source, r.target LIMIT ?3`, set, inside, limit)
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
		var err error
		links, err = queryAll(ctx, tx, func(sc scanner, _ ...any) (graph.DocumentLink, error) {
			var l graph.DocumentLink
			err := sc.Scan(&l.EntityID, &l.DocumentID, &l.ChunkID, &l.Documents)
			return l, err
		}, `
			WITH linked AS (
				SELECT m.entity_id, c.document_id, min(c.seq) AS seq
				FROM (SELECT DISTINCT s.entity_id FROM mentions s WHERE s.chunk_id IN (SELECT value FROM json_each(?))) e
				JOIN mentions m ON m.entity_id = e.entity_id
				JOIN chunks c ON c.id = m.chunk_id
				GROUP BY m.entity_id, c.document_id
			), counted AS (
				SELECT entity_id, count(*) AS documents FROM linked GROUP BY entity_id HAVING count(*) <= ?
			)
			SELECT l.entity_id, l.document_id, c.id, n.documents
			FROM linked l
			JOIN counted n ON n.entity_id = l.entity_id
			JOIN chunks c ON c.document_id = l.document_id AND c.seq = l.seq
			ORDER BY l.entity_id, l.document_id`, encodeStrings(ids), maxDocuments)
		return err
	})
	return links, err
}
