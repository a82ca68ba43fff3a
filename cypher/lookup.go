package cypher

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/stratarag/strata/internal/graph"
)

// readRows runs one statement in a read transaction.
func (s *Store) readRows(ctx context.Context, name string, params map[string]any) ([]map[string]any, error) {
	return s.run.one(ctx, false, s.q.get(name), params)
}

// byIDs looks up items by id and returns them in the order of ids, skipping missing ones.
func byIDs[T any](ctx context.Context, s *Store, what, name, col string, ids []string,
	decode func(map[string]any) (T, error), id func(T) string) ([]T, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		return nil, nil
	}
	found := make(map[string]T, len(ids))
	for _, part := range chunked(graph.UniqueIDs(ids), s.batchSize) {
		rows, err := s.readRows(ctx, name, map[string]any{"ids": part})
		if err != nil {
			return nil, fmt.Errorf("cypher: %s: %w", what, err)
		}
		items, err := decodeColumn(rows, col, decode)
		if err != nil {
			return nil, fmt.Errorf("cypher: %s: %w", what, err)
		}
		for _, it := range items {
			found[id(it)] = it
		}
	}
	return inOrder(ids, found), nil
}

// inOrder returns the records of found in the order of ids, skipping ids it does not hold.
func inOrder[T any](ids []string, found map[string]T) []T {
	var out []T
	for _, k := range ids {
		if it, ok := found[k]; ok {
			out = append(out, it)
		}
	}
	return out
}

// readDocuments runs read_documents.
func (s *Store) readDocuments(ctx context.Context, ids []string) ([]graph.Document, error) {
	return byIDs(ctx, s, "documents", qReadDocuments, "document", ids, decodeDocument, documentID)
}

// AllDocuments implements graph.Store.
func (s *Store) AllDocuments(ctx context.Context) ([]graph.Document, error) {
	rows, err := s.readRows(ctx, qReadAllDocuments, nil)
	if err != nil {
		return nil, fmt.Errorf("cypher: all documents: %w", err)
	}
	return decodeAs("all documents", rows, "document", decodeDocument)
}

// readChunks runs read_chunks.
func (s *Store) readChunks(ctx context.Context, ids []string) ([]graph.Chunk, error) {
	return byIDs(ctx, s, "chunks", qReadChunks, "chunk", ids, decodeChunk, chunkID)
}

// Entities implements graph.Store.
// A resident store answers from its copies of the entity records (without embeddings) and of
// the entity vectors, when both vector indexes exist.
func (s *Store) Entities(ctx context.Context, ids []string) ([]graph.Entity, error) {
	if s.resident && len(ids) > 0 {
		entities, ok, err := s.residentEntityRecords(ctx, ids)
		if err != nil {
			return nil, fmt.Errorf("cypher: entities: %w", err)
		}
		if ok {
			return entities, nil
		}
	}
	return byIDs(ctx, s, "entities", qReadEntities, "entity", ids, decodeEntity,
		func(e graph.Entity) string { return e.ID })
}

// Communities implements graph.Store.
func (s *Store) Communities(ctx context.Context, ids []string) ([]graph.Community, error) {
	return byIDs(ctx, s, "communities", qReadCommunities, "community", ids, decodeCommunity,
		func(c graph.Community) string { return c.ID })
}

// Relations implements graph.Store. Keys may name a pair in either order. A resident store
// answers from its copy of the relations.
func (s *Store) Relations(ctx context.Context, keys []graph.RelationKey) ([]graph.Relation, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(keys) == 0 {
		return nil, nil
	}
	if s.resident {
		rels, err := s.residentRelationsByKey(ctx, keys)
		if err != nil {
			return nil, fmt.Errorf("cypher: relations: %w", err)
		}
		return rels, nil
	}
	norm := make([]graph.RelationKey, len(keys))
	seen := map[graph.RelationKey]bool{}
	var params []map[string]any
	for i, k := range keys {
		norm[i] = graph.NewRelationKey(k.Source, k.Target)
		if !seen[norm[i]] {
			seen[norm[i]] = true
			params = append(params, map[string]any{"source": norm[i].Source, "target": norm[i].Target})
		}
	}
	found := map[graph.RelationKey]graph.Relation{}
	for _, part := range chunked(params, s.batchSize) {
		rows, err := s.readRows(ctx, qReadRelations, map[string]any{"keys": part})
		if err != nil {
			return nil, fmt.Errorf("cypher: relations: %w", err)
		}
		rels, err := decodeColumn(rows, "relation", decodeRelation)
		if err != nil {
			return nil, fmt.Errorf("cypher: relations: %w", err)
		}
		for _, r := range rels {
			found[r.Key()] = r
		}
	}
	var out []graph.Relation
	for _, k := range norm {
		if r, ok := found[k]; ok {
			out = append(out, r)
		}
	}
	return out, nil
}

// DocumentChunks implements graph.Store.
func (s *Store) DocumentChunks(ctx context.Context, documentID string) ([]graph.Chunk, error) {
	rows, err := s.readRows(ctx, qReadDocumentChunks, map[string]any{"documentId": documentID})
	if err != nil {
		return nil, fmt.Errorf("cypher: document chunks: %w", err)
	}
	return decodeAs("document chunks", rows, "chunk", decodeChunk)
}

// EntitiesByLayer implements graph.Store.
func (s *Store) EntitiesByLayer(ctx context.Context, layer int) ([]graph.Entity, error) {
	rows, err := s.readRows(ctx, qReadEntitiesByLayer, map[string]any{"layer": int64(layer)})
	if err != nil {
		return nil, fmt.Errorf("cypher: entities by layer: %w", err)
	}
	return decodeAs("entities by layer", rows, "entity", decodeEntity)
}

// EntitiesAfter implements graph.EntityPager.
func (s *Store) EntitiesAfter(ctx context.Context, layer int, after string, limit int) ([]graph.Entity, error) {
	if limit <= 0 {
		return nil, fmt.Errorf("cypher: entities of layer %d after %q: limit %d, want a positive one", layer, after, limit)
	}
	rows, err := s.readRows(ctx, qReadEntitiesAfter, map[string]any{"layer": int64(layer), "after": after, "limit": int64(limit)})
	if err != nil {
		return nil, fmt.Errorf("cypher: entities of layer %d after %q: %w", layer, after, err)
	}
	return decodeAs("entities after", rows, "entity", decodeEntity)
}

// EntityTexts implements graph.EntityTextReader.
func (s *Store) EntityTexts(ctx context.Context, ids []string) ([]graph.Entity, error) {
	return byIDs(ctx, s, "entity texts", qReadEntitiesTexts, "entity", ids, decodeEntity,
		func(e graph.Entity) string { return e.ID })
}

// EmbeddedIDsAfter implements graph.EntityScanner.
func (s *Store) EmbeddedIDsAfter(ctx context.Context, layer int, after string, limit int) ([]string, error) {
	what := fmt.Sprintf("ids of embedded entities of layer %d after %q", layer, after)
	if limit <= 0 {
		return nil, fmt.Errorf("cypher: %s: limit %d, want a positive one", what, limit)
	}
	rows, err := s.readRows(ctx, qReadEmbeddedIDsAfter, map[string]any{"layer": int64(layer), "after": after, "limit": int64(limit)})
	if err != nil {
		return nil, fmt.Errorf("cypher: %s: %w", what, err)
	}
	ids := make([]string, len(rows))
	for i, row := range rows {
		f := fields{m: row}
		if ids[i] = f.str("id"); f.err != nil {
			return nil, fmt.Errorf("cypher: %s: %w", what, f.err)
		}
	}
	return ids, nil
}

// UnembeddedAfter implements graph.EntityScanner.
func (s *Store) UnembeddedAfter(ctx context.Context, layer int, after string, limit int) ([]graph.Entity, error) {
	what := fmt.Sprintf("entities without embeddings of layer %d after %q", layer, after)
	if limit <= 0 {
		return nil, fmt.Errorf("cypher: %s: limit %d, want a positive one", what, limit)
	}
	rows, err := s.readRows(ctx, qReadUnembeddedAfter, map[string]any{"layer": int64(layer), "after": after, "limit": int64(limit)})
	if err != nil {
		return nil, fmt.Errorf("cypher: %s: %w", what, err)
	}
	return decodeAs(what, rows, "entity", decodeEntity)
}

// CommunitiesByLevel implements graph.Store.
func (s *Store) CommunitiesByLevel(ctx context.Context, level int) ([]graph.Community, error) {
	if s.resident && level >= 0 {
		return s.residentCommunitiesByLevel(ctx, level)
	}
	return s.readCommunitiesByLevel(ctx, level)
}

// readCommunitiesByLevel runs read_communities_by_level.
func (s *Store) readCommunitiesByLevel(ctx context.Context, level int) ([]graph.Community, error) {
	rows, err := s.readRows(ctx, qReadCommunitiesLevel, map[string]any{"level": int64(level)})
	if err != nil {
		return nil, fmt.Errorf("cypher: communities by level: %w", err)
	}
	return decodeAs("communities by level", rows, "community", decodeCommunity)
}

// CommunityMembers implements graph.Store with three statements in one read
// transaction (one snapshot). An unknown community has no members.
func (s *Store) CommunityMembers(ctx context.Context, communityID string, maxRelations int) (graph.Members, error) {
	if err := ctx.Err(); err != nil {
		return graph.Members{}, err
	}
	var m graph.Members
	params := map[string]any{"id": communityID}
	err := s.run.read(ctx, func(t tx) error {
		rows, err := t.run(ctx, s.q.get(qReadCommunityMembers), params)
		if err != nil {
			return err
		}
		if m.Entities, err = decodeColumn(rows, "entity", decodeEntity); err != nil {
			return err
		}
		limit := int64(maxRelations)
		if maxRelations < 0 {
			limit = math.MaxInt64
		}
		if rows, err = t.run(ctx, s.q.get(qReadCommunityRelations), map[string]any{"id": communityID, "limit": limit}); err != nil {
			return err
		}
		if len(rows) == 1 {
			f := &fields{m: rows[0]}
			m.RelationCount, m.RelationWeight = int(f.int("count")), f.float("weight")
			rels, err := decodeList(f, "relations", decodeRelation) // checks count and weight too
			if err != nil {
				return fmt.Errorf("relations: %w", err)
			}
			if len(rels) > 0 {
				m.Relations = rels
			}
		}
		if rows, err = t.run(ctx, s.q.get(qReadCommunityChildren), params); err != nil {
			return err
		}
		m.Children, err = decodeColumn(rows, "community", decodeCommunity)
		return err
	})
	if err != nil {
		return graph.Members{}, fmt.Errorf("cypher: community members: %w", err)
	}
	return m, nil
}

// CommunityEntities implements graph.Store with one statement for all the communities, or on a
// resident store from its copy of the memberships and the entity records it read
// (communitycache.go).
func (s *Store) CommunityEntities(ctx context.Context, communityIDs []string) (map[string][]graph.Entity, error) {
	ids := graph.UniqueIDs(communityIDs)
	out := make(map[string][]graph.Entity, len(ids))
	if len(ids) == 0 {
		return out, ctx.Err()
	}
	if s.resident {
		out, err := s.residentCommunityEntities(ctx, ids)
		if err != nil {
			return nil, fmt.Errorf("cypher: member entities of communities: %w", err)
		}
		return out, nil
	}
	rows, err := s.readRows(ctx, qReadCommunityEntities, map[string]any{"ids": ids})
	if err != nil {
		return nil, fmt.Errorf("cypher: member entities of communities: %w", err)
	}
	for _, row := range rows {
		f := fields{m: row}
		community := f.str("community")
		if f.err != nil {
			return nil, fmt.Errorf("cypher: member entities of communities: %w", f.err)
		}
		m, ok := row["entity"].(map[string]any)
		if !ok {
			return nil, fmt.Errorf("cypher: member entities of communities: entity is %T, want map", row["entity"])
		}
		e, err := decodeEntity(m)
		if err != nil {
			return nil, fmt.Errorf("cypher: member entities of communities: %w", err)
		}
		out[community] = append(out[community], e)
	}
	return out, nil
}

// MetaValues implements graph.MetaBatchReader with one statement. Within a read scope, a
// store that reads the generations anyway (resident, or with snapshots) answers keys that are
// all generationKeys from the scope's read of them, where a value set to "" counts as unset.
func (s *Store) MetaValues(ctx context.Context, keys []string) (map[string]string, error) {
	out := make(map[string]string, len(keys))
	if len(keys) == 0 {
		return out, ctx.Err()
	}
	if (s.resident || s.snapshotDir != "") && graph.ReadScopeOf(ctx) != nil && allGenerationKeys(keys) {
		vals, err := s.generations(ctx)
		if err != nil {
			return nil, fmt.Errorf("cypher: meta %q: %w", keys, err)
		}
		for _, k := range keys {
			if v, ok := vals[k]; ok {
				out[k] = v
			}
		}
		return out, nil
	}
	return s.readMetaValues(ctx, keys)
}

// readMetaValues is MetaValues with one statement, keys not empty.
func (s *Store) readMetaValues(ctx context.Context, keys []string) (map[string]string, error) {
	out := make(map[string]string, len(keys))
	rows, err := s.readRows(ctx, qReadMetaKeys, map[string]any{"keys": graph.UniqueIDs(keys)})
	if err != nil {
		return nil, fmt.Errorf("cypher: meta %q: %w", keys, err)
	}
	for _, row := range rows {
		f := fields{m: row}
		k, v := f.str("key"), f.str("value")
		if f.err != nil {
			return nil, fmt.Errorf("cypher: meta %q: %w", keys, f.err)
		}
		out[k] = v
	}
	return out, nil
}

// allGenerationKeys reports whether every key is one of generationKeys.
func allGenerationKeys(keys []string) bool {
	for _, k := range keys {
		if !slices.Contains(generationKeys, k) {
			return false
		}
	}
	return true
}

// Meta implements graph.Store.
func (s *Store) Meta(ctx context.Context, key string) (string, bool, error) {
	rows, err := s.readRows(ctx, qReadMeta, map[string]any{"key": key})
	if err != nil {
		return "", false, fmt.Errorf("cypher: meta %q: %w", key, err)
	}
	if len(rows) == 0 {
		return "", false, nil
	}
	f := fields{m: rows[0]}
	v := f.str("value")
	if f.err != nil {
		return "", false, fmt.Errorf("cypher: meta %q: %w", key, f.err)
	}
	return v, true, nil
}

// Stats implements graph.Store. Every key of the contract is present, zero or not.
func (s *Store) Stats(ctx context.Context) (graph.Stats, error) {
	rows, err := s.readRows(ctx, qReadStats, nil)
	if err != nil {
		return graph.Stats{}, fmt.Errorf("cypher: stats: %w", err)
	}
	st := graph.Stats{
		Nodes:         map[string]int64{"Document": 0, "Chunk": 0, "Entity": 0, "Summary": 0, "Community": 0},
		Relationships: map[string]int64{"PART_OF": 0, "NEXT": 0, "HAS_ENTITY": 0, "RELATED": 0, "SUMMARIZED_BY": 0, "IN_COMMUNITY": 0, "CHILD_OF": 0},
	}
	if len(rows) == 0 {
		return graph.Stats{}, fmt.Errorf("cypher: stats: no result")
	}
	f := &fields{m: rows[0]}
	nodes, rels := f.sub("nodes"), f.sub("relationships")
	for k := range st.Nodes {
		st.Nodes[k] = nodes.int(k)
	}
	for k := range st.Relationships {
		st.Relationships[k] = rels.int(k)
	}
	for _, e := range []error{f.err, nodes.err, rels.err} {
		if e != nil {
			return graph.Stats{}, fmt.Errorf("cypher: stats: %w", e)
		}
	}
	return st, nil
}

// decodeAs decodes a column and adds context to a decoding error.
func decodeAs[T any](what string, rows []map[string]any, col string, decode func(map[string]any) (T, error)) ([]T, error) {
	out, err := decodeColumn(rows, col, decode)
	if err != nil {
		return nil, fmt.Errorf("cypher: %s: %w", what, err)
	}
	return out, nil
}
