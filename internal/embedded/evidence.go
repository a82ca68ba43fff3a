package embedded

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/stratarag/strata/internal/graph"
)

// evidenceVersion is the first schema version that holds per-chunk evidence.
const evidenceVersion = 4

// checkEvidence fails for a reader of a store older than the evidence columns.
func (s *Store) checkEvidence(what string) error {
	if s.version < evidenceVersion {
		return fmt.Errorf("%s: store %s has no per-chunk evidence (schema version %d); run `strata ingest` once to upgrade it", what, s.dir, s.version)
	}
	return nil
}

const mentionEvidenceCols = `m.chunk_id, m.entity_id, m.name, m.type, m.description, m.subject, c.document_id, c.seq`

func scanMentionEvidence(sc scanner, _ ...any) (graph.Mention, error) {
	var m graph.Mention
	err := sc.Scan(&m.ChunkID, &m.EntityID, &m.Name, &m.Type, &m.Description, &m.Subject, &m.DocumentID, &m.Seq)
	return m, err
}

const relationEvidenceCols = `r.source, r.target, r.chunk_id, r.description, r.weight, c.document_id, c.seq`

func scanRelationEvidence(sc scanner, _ ...any) (graph.RelationEvidence, error) {
	var ev graph.RelationEvidence
	err := sc.Scan(&ev.Source, &ev.Target, &ev.ChunkID, &ev.Description, &ev.Weight, &ev.DocumentID, &ev.Seq)
	return ev, err
}

// EntityEvidence returns every mention of the entities, ordered by entity id, document id, Seq
// and chunk id.
func (s *Store) EntityEvidence(ctx context.Context, entityIDs []string) ([]graph.Mention, error) {
	const what = "read entity evidence"
	if len(entityIDs) == 0 {
		return nil, ctxErr(ctx, what)
	}
	if err := s.checkEvidence(what); err != nil {
		return nil, err
	}
	var out []graph.Mention
	err := s.read(ctx, what, func(tx *sql.Tx) error {
		var err error
		out, err = queryAll(ctx, tx, scanMentionEvidence, `
			SELECT `+mentionEvidenceCols+`
			FROM mentions m JOIN chunks c ON c.id = m.chunk_id
			WHERE m.entity_id IN (SELECT value FROM json_each(?))
			ORDER BY m.entity_id, c.document_id, c.seq, c.id`, encodeStrings(entityIDs))
		return err
	})
	return out, err
}

// RelationEvidence returns the evidence of the relations, ordered by key, document id, Seq and
// chunk id.
func (s *Store) RelationEvidence(ctx context.Context, keys []graph.RelationKey) ([]graph.RelationEvidence, error) {
	const what = "read relation evidence"
	if len(keys) == 0 {
		return nil, ctxErr(ctx, what)
	}
	if err := s.checkEvidence(what); err != nil {
		return nil, err
	}
	pairsJSON := encodeRelationKeys(keys)
	var out []graph.RelationEvidence
	err := s.read(ctx, what, func(tx *sql.Tx) error {
		var err error
		out, err = queryAll(ctx, tx, scanRelationEvidence, `
			SELECT `+relationEvidenceCols+`
			FROM (SELECT DISTINCT value ->> 0 AS source, value ->> 1 AS target FROM json_each(?)) k
			JOIN relation_evidence r ON r.source = k.source AND r.target = k.target
			JOIN chunks c ON c.id = r.chunk_id
			ORDER BY r.source, r.target, c.document_id, c.seq, c.id`, pairsJSON)
		return err
	})
	return out, err
}

// ChunkEvidence returns the mentions of the chunks and the relation evidence they are the chunk
// of, in the order of EntityEvidence and RelationEvidence.
func (s *Store) ChunkEvidence(ctx context.Context, chunkIDs []string) ([]graph.Mention, []graph.RelationEvidence, error) {
	const what = "read chunk evidence"
	if len(chunkIDs) == 0 {
		return nil, nil, ctxErr(ctx, what)
	}
	if err := s.checkEvidence(what); err != nil {
		return nil, nil, err
	}
	var mentions []graph.Mention
	var relations []graph.RelationEvidence
	ids := encodeStrings(chunkIDs)
	err := s.read(ctx, what, func(tx *sql.Tx) error {
		var err error
		mentions, err = queryAll(ctx, tx, scanMentionEvidence, `
			SELECT `+mentionEvidenceCols+`
			FROM mentions m JOIN chunks c ON c.id = m.chunk_id
			WHERE m.chunk_id IN (SELECT value FROM json_each(?))
			ORDER BY m.entity_id, c.document_id, c.seq, c.id`, ids)
		if err != nil {
			return err
		}
		relations, err = queryAll(ctx, tx, scanRelationEvidence, `
			SELECT `+relationEvidenceCols+`
			FROM relation_evidence r JOIN chunks c ON c.id = r.chunk_id
			WHERE r.chunk_id IN (SELECT value FROM json_each(?))
			ORDER BY r.source, r.target, c.document_id, c.seq, c.id`, ids)
		return err
	})
	return mentions, relations, err
}

// Unsupported counts the layer-0 entities without a mention other than subject ones, and the
// relations between layer-0 entities without evidence.
func (s *Store) Unsupported(ctx context.Context) (entities, relations int64, err error) {
	const what = "count entities and relations without evidence"
	if err := s.checkEvidence(what); err != nil {
		return 0, 0, err
	}
	err = s.read(ctx, what, func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx, `
			SELECT count(*) FROM entities e WHERE e.layer = 0
			AND NOT EXISTS (SELECT 1 FROM mentions m WHERE m.entity_id = e.id AND m.subject = 0)`).Scan(&entities); err != nil {
			return err
		}
		// Driven from the relations: joining the entities first would let SQLite pair every
		// layer-0 entity with every other. The evidence test comes first, so that only the
		// relations without evidence (summary relations, mostly) pay for the layer lookups.
		return tx.QueryRowContext(ctx, `
			SELECT count(*) FROM relations r
			WHERE NOT EXISTS (SELECT 1 FROM relation_evidence v JOIN chunks c ON c.id = v.chunk_id
				WHERE v.source = r.source AND v.target = r.target)
			AND (SELECT layer FROM entities WHERE id = r.source) = 0
			AND (SELECT layer FROM entities WHERE id = r.target) = 0`).Scan(&relations)
	})
	return entities, relations, err
}
