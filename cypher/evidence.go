package cypher

import (
	"context"
	"fmt"

	"github.com/stratarag/strata/internal/graph"
)

// EntityEvidence implements graph.EvidenceReader.
func (s *Store) EntityEvidence(ctx context.Context, entityIDs []string) ([]graph.Mention, error) {
	out, err := evidenceRows(ctx, s, qReadEntityEvidence, "mention", decodeMention, idParams(entityIDs, s.batchSize))
	if err != nil {
		return nil, fmt.Errorf("cypher: entity evidence: %w", err)
	}
	graph.SortMentions(out)
	return out, nil
}

// RelationEvidence implements graph.EvidenceReader.
func (s *Store) RelationEvidence(ctx context.Context, keys []graph.RelationKey) ([]graph.RelationEvidence, error) {
	seen := map[graph.RelationKey]bool{}
	var rows []map[string]any
	for _, k := range keys {
		k = graph.NewRelationKey(k.Source, k.Target)
		if !seen[k] {
			seen[k] = true
			rows = append(rows, relationKeyRow(k))
		}
	}
	var params []map[string]any
	for _, part := range chunked(rows, s.batchSize) {
		params = append(params, map[string]any{"keys": part})
	}
	out, err := evidenceRows(ctx, s, qReadRelationEvidence, "evidence", decodeRelationEvidence, params)
	if err != nil {
		return nil, fmt.Errorf("cypher: relation evidence: %w", err)
	}
	graph.SortRelationEvidence(out)
	return out, nil
}

// ChunkEvidence implements graph.EvidenceReader.
func (s *Store) ChunkEvidence(ctx context.Context, chunkIDs []string) ([]graph.Mention, []graph.RelationEvidence, error) {
	params := idParams(chunkIDs, s.batchSize)
	mentions, err := evidenceRows(ctx, s, qReadChunkMentions, "mention", decodeMention, params)
	if err != nil {
		return nil, nil, fmt.Errorf("cypher: chunk evidence: %w", err)
	}
	relations, err := evidenceRows(ctx, s, qReadChunkRelEvidence, "evidence", decodeRelationEvidence, params)
	if err != nil {
		return nil, nil, fmt.Errorf("cypher: chunk evidence: %w", err)
	}
	graph.SortMentions(mentions)
	graph.SortRelationEvidence(relations)
	return mentions, relations, nil
}

// Unsupported implements graph.EvidenceReader.
func (s *Store) Unsupported(ctx context.Context) (entities, relations int64, err error) {
	rows, err := s.readRows(ctx, qCountUnsupported, nil)
	if err != nil {
		return 0, 0, fmt.Errorf("cypher: count entities and relations without evidence: %w", err)
	}
	if len(rows) != 1 {
		return 0, 0, fmt.Errorf("cypher: count entities and relations without evidence: %d rows", len(rows))
	}
	f := fields{m: rows[0]}
	entities, relations = f.int("entities"), f.int("relations")
	if f.err != nil {
		return 0, 0, fmt.Errorf("cypher: count entities and relations without evidence: %w", f.err)
	}
	return entities, relations, nil
}

// idParams splits ids, without repeats, into the parameters of one statement each.
func idParams(ids []string, batch int) []map[string]any {
	var out []map[string]any
	for _, part := range chunked(graph.UniqueIDs(ids), batch) {
		out = append(out, map[string]any{"ids": part})
	}
	return out
}

// evidenceRows runs a statement once per parameter set and decodes column col of every row.
func evidenceRows[T any](ctx context.Context, s *Store, name, col string, decode func(map[string]any) (T, error), params []map[string]any) ([]T, error) {
	var out []T
	for _, p := range params {
		rows, err := s.readRows(ctx, name, p)
		if err != nil {
			return nil, err
		}
		items, err := decodeColumn(rows, col, decode)
		if err != nil {
			return nil, err
		}
		out = append(out, items...)
	}
	return out, nil
}

func decodeMention(m map[string]any) (graph.Mention, error) {
	f := fields{m: m}
	out := graph.Mention{
		ChunkID: f.str("chunkId"), EntityID: f.str("entityId"), Name: f.str("name"), Type: f.str("type"),
		Description: f.str("description"), Subject: f.bool("subject"), DocumentID: f.str("documentId"),
		Seq: int(f.int("seq")),
	}
	return out, f.err
}

func decodeRelationEvidence(m map[string]any) (graph.RelationEvidence, error) {
	f := fields{m: m}
	out := graph.RelationEvidence{
		Source: f.str("source"), Target: f.str("target"), ChunkID: f.str("chunkId"),
		Description: f.str("description"), Weight: f.float("weight"), DocumentID: f.str("documentId"),
		Seq: int(f.int("seq")),
	}
	return out, f.err
}
