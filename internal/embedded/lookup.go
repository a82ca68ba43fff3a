package embedded

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/topk"
)

// byIDs looks up nodes by id and returns them in the order of ids, skipping missing ones. A
// repeated id yields its node again, as a query per id would.
func byIDs[T any](ctx context.Context, s *Store, what, query string, ids []string, scan func(scanner, ...any) (T, error), id func(T) string) ([]T, error) {
	if len(ids) == 0 {
		return nil, ctxErr(ctx, what)
	}
	var found []T
	err := s.read(ctx, what, func(tx *sql.Tx) error {
		var err error
		found, err = queryAll(ctx, s.cached(tx), scan, query, encodeStrings(ids))
		return err
	})
	if err != nil {
		return nil, err
	}
	index := make(map[string]int, len(found))
	for i, v := range found {
		index[id(v)] = i
	}
	out := make([]T, 0, len(found))
	for _, k := range ids {
		if i, ok := index[k]; ok {
			out = append(out, found[i])
		}
	}
	return out, nil
}

// Documents returns the documents with the given ids that exist, in the order of ids.
func (s *Store) Documents(ctx context.Context, ids []string) ([]graph.Document, error) {
	return byIDs(ctx, s, "look up documents",
		`SELECT `+documentCols("d")+` FROM documents d WHERE d.id IN (SELECT value FROM json_each(?))`,
		ids, scanDocument, func(d graph.Document) string { return d.ID })
}

// Chunks returns the chunks with the given ids that exist, in the order of ids.
func (s *Store) Chunks(ctx context.Context, ids []string) ([]graph.Chunk, error) {
	return byIDs(ctx, s, "look up chunks",
		`SELECT `+chunkCols("c", s.version)+` FROM chunks c WHERE c.id IN (SELECT value FROM json_each(?))`,
		ids, scanChunk, func(c graph.Chunk) string { return c.ID })
}

// Entities returns the entities with the given ids that exist, in the order of ids.
func (s *Store) Entities(ctx context.Context, ids []string) ([]graph.Entity, error) {
	return byIDs(ctx, s, "look up entities",
		`SELECT `+entityCols("e")+` FROM entities e WHERE e.id IN (SELECT value FROM json_each(?))`,
		ids, scanEntity, func(e graph.Entity) string { return e.ID })
}

// Communities returns the communities with the given ids that exist, in the order of ids.
func (s *Store) Communities(ctx context.Context, ids []string) ([]graph.Community, error) {
	return byIDs(ctx, s, "look up communities",
		`SELECT `+communityCols("c")+` FROM communities c WHERE c.id IN (SELECT value FROM json_each(?))`,
		ids, scanCommunity, func(c graph.Community) string { return c.ID })
}

// Relations returns the relations with the given keys that exist, in the order of keys. A key
// whose endpoints are swapped names the same relation.
func (s *Store) Relations(ctx context.Context, keys []graph.RelationKey) ([]graph.Relation, error) {
	if len(keys) == 0 {
		return nil, ctxErr(ctx, "look up relations")
	}
	pairsJSON := encodeRelationKeys(keys)
	var found []graph.Relation
	err := s.read(ctx, "look up relations", func(tx *sql.Tx) error {
		var err error
		found, err = queryAll(ctx, s.cached(tx), scanRelation, `
			SELECT `+relationCols("r")+`
			FROM (SELECT DISTINCT value ->> 0 AS source, value ->> 1 AS target FROM json_each(?)) k
			JOIN relations r ON r.source = k.source AND r.target = k.target
			JOIN entities a ON a.id = r.source
			JOIN entities b ON b.id = r.target`,
			pairsJSON)
		return err
	})
	if err != nil {
		return nil, err
	}
	index := make(map[graph.RelationKey]int, len(found))
	for i, r := range found {
		index[r.Key()] = i
	}
	out := make([]graph.Relation, 0, len(found))
	for _, k := range keys {
		if i, ok := index[graph.NewRelationKey(k.Source, k.Target)]; ok {
			out = append(out, found[i])
		}
	}
	return out, nil
}

// AllDocuments returns every document, ordered by id.
func (s *Store) AllDocuments(ctx context.Context) ([]graph.Document, error) {
	var out []graph.Document
	err := s.read(ctx, "list documents", func(tx *sql.Tx) error {
		var err error
		out, err = queryAll(ctx, s.cached(tx), scanDocument, `SELECT `+documentCols("d")+` FROM documents d ORDER BY d.id`)
		return err
	})
	return out, err
}

// DocumentChunks returns the chunks of a document in Seq order.
func (s *Store) DocumentChunks(ctx context.Context, documentID string) ([]graph.Chunk, error) {
	var out []graph.Chunk
	err := s.read(ctx, "chunks of document "+documentID, func(tx *sql.Tx) error {
		var err error
		out, err = queryAll(ctx, s.cached(tx), scanChunk, `SELECT `+chunkCols("c", s.version)+` FROM chunks c WHERE c.document_id = ? ORDER BY c.seq, c.id`, documentID)
		return err
	})
	return out, err
}

// EntitiesByLayer returns all entities of one layer, ordered by id.
func (s *Store) EntitiesByLayer(ctx context.Context, layer int) ([]graph.Entity, error) {
	var out []graph.Entity
	err := s.read(ctx, fmt.Sprintf("entities of layer %d", layer), func(tx *sql.Tx) error {
		var err error
		out, err = queryAll(ctx, s.cached(tx), scanEntity, `SELECT `+entityCols("e")+` FROM entities e WHERE e.layer = ? ORDER BY e.id`, layer)
		return err
	})
	return out, err
}

// EntitiesAfter implements graph.EntityPager. Ids compare as SQLite compares text (bytewise),
// the order of EntitiesByLayer.
func (s *Store) EntitiesAfter(ctx context.Context, layer int, after string, limit int) ([]graph.Entity, error) {
	if limit <= 0 {
		return nil, fmt.Errorf("entities of layer %d after %q: limit %d, want a positive one", layer, after, limit)
	}
	var out []graph.Entity
	err := s.read(ctx, fmt.Sprintf("entities of layer %d after %q", layer, after), func(tx *sql.Tx) error {
		var err error
		out, err = queryAll(ctx, tx, scanEntity, `SELECT `+entityCols("e")+` FROM entities e WHERE e.layer = ? AND e.id > ? ORDER BY e.id LIMIT ?`, layer, after, limit)
		return err
	})
	return out, err
}

// EmbeddedIDsAfter implements graph.EntityScanner, in the order of EntitiesAfter.
func (s *Store) EmbeddedIDsAfter(ctx context.Context, layer int, after string, limit int) ([]string, error) {
	what := fmt.Sprintf("ids of embedded entities of layer %d after %q", layer, after)
	if limit <= 0 {
		return nil, fmt.Errorf("%s: limit %d, want a positive one", what, limit)
	}
	var out []string
	err := s.read(ctx, what, func(tx *sql.Tx) error {
		var err error
		out, err = queryAll(ctx, s.cached(tx), scanID,
			`SELECT e.id FROM entities e WHERE e.layer = ? AND e.id > ? AND e.embedding IS NOT NULL ORDER BY e.id LIMIT ?`, layer, after, limit)
		return err
	})
	return out, err
}

// UnembeddedAfter implements graph.EntityScanner, in the order of EntitiesAfter.
func (s *Store) UnembeddedAfter(ctx context.Context, layer int, after string, limit int) ([]graph.Entity, error) {
	what := fmt.Sprintf("entities without embeddings of layer %d after %q", layer, after)
	if limit <= 0 {
		return nil, fmt.Errorf("%s: limit %d, want a positive one", what, limit)
	}
	var out []graph.Entity
	err := s.read(ctx, what, func(tx *sql.Tx) error {
		var err error
		out, err = queryAll(ctx, s.cached(tx), scanEntity,
			`SELECT `+entityColsNoEmbedding("e")+` FROM entities e WHERE e.layer = ? AND e.id > ? AND e.embedding IS NULL ORDER BY e.id LIMIT ?`, layer, after, limit)
		return err
	})
	return out, err
}

// EntityTexts implements graph.EntityTextReader.
func (s *Store) EntityTexts(ctx context.Context, ids []string) ([]graph.Entity, error) {
	return byIDs(ctx, s, "look up entity texts",
		`SELECT `+entityColsNoEmbedding("e")+` FROM entities e WHERE e.id IN (SELECT value FROM json_each(?))`,
		ids, scanEntity, func(e graph.Entity) string { return e.ID })
}

// CommunitiesByLevel returns the communities of one level (all levels when level < 0), ordered by
// level then community id.
func (s *Store) CommunitiesByLevel(ctx context.Context, level int) ([]graph.Community, error) {
	var out []graph.Community
	err := s.read(ctx, fmt.Sprintf("communities of level %d", level), func(tx *sql.Tx) error {
		var err error
		q, args := communitiesByLevelSQL(level)
		out, err = queryAll(ctx, s.cached(tx), scanCommunity, q, args...)
		return err
	})
	return out, err
}

// CommunityMembers returns the member entities of a community ordered by id, the maxRelations
// heaviest relations among them (see graph.Members) and their totals, and its child communities
// ordered by community id, from one snapshot. An unknown community has no members.
func (s *Store) CommunityMembers(ctx context.Context, communityID string, maxRelations int) (graph.Members, error) {
	var m graph.Members
	err := s.read(ctx, "members of community "+communityID, func(tx *sql.Tx) error {
		q := s.cached(tx)
		var err error
		m.Entities, err = queryAll(ctx, q, scanEntity, memberEntitiesSQL(), communityID)
		if err != nil {
			return err
		}
		if m.Relations, m.RelationCount, m.RelationWeight, err = heaviestRelations(ctx, q, communityID, maxRelations); err != nil {
			return err
		}
		m.Children, err = queryAll(ctx, q, scanCommunity, childCommunitiesSQL(), communityID)
		return err
	})
	return m, err
}

// heaviestRelations streams the relations among the members of community id and keeps the
// maxRelations heaviest (all when maxRelations < 0) in graph.Members' order, with the count and
// total weight of all of them. The rows stream in key order, as the join yields them, so that
// SQLite neither sorts nor holds them, and only the kept ones stay live here: the largest
// community of a 50 MiB document has some 300 000 relations, 180 MB read whole.
func heaviestRelations(ctx context.Context, q querier, id string, maxRelations int) (top []graph.Relation, count int, weight float64, err error) {
	rows, err := q.QueryContext(ctx, memberRelationsSQL(), id)
	if err != nil {
		return nil, 0, 0, err
	}
	defer rows.Close()
	kept := topk.New(maxRelations, heavierFirst)
	for rows.Next() {
		r, err := scanRelation(rows)
		if err != nil {
			return nil, 0, 0, err
		}
		count++
		weight += r.Weight
		kept.Add(r)
	}
	return kept.Items(), count, weight, rows.Err()
}

// heavierFirst orders relations by weight, heaviest first, then by key.
func heavierFirst(a, b graph.Relation) int {
	return cmp.Or(cmp.Compare(b.Weight, a.Weight), cmp.Compare(a.Source, b.Source), cmp.Compare(a.Target, b.Target))
}

// CommunityEntities returns the member entities of the communities, by community id, each
// community's ordered by entity id, from one snapshot. Unknown communities are left out.
func (s *Store) CommunityEntities(ctx context.Context, communityIDs []string) (map[string][]graph.Entity, error) {
	const what = "member entities of communities"
	ids := graph.UniqueIDs(communityIDs)
	out := make(map[string][]graph.Entity, len(ids))
	if len(ids) == 0 {
		return out, ctxErr(ctx, what)
	}
	err := s.read(ctx, what, func(tx *sql.Tx) error {
		type member struct {
			community string
			entity    graph.Entity
		}
		rows, err := queryAll(ctx, s.cached(tx), func(sc scanner, _ ...any) (member, error) {
			var m member
			var err error
			m.entity, err = scanEntity(sc, &m.community)
			return m, err
		}, communityEntitiesSQL(), encodeStrings(ids))
		if err != nil {
			return err
		}
		for _, m := range rows {
			out[m.community] = append(out[m.community], m.entity)
		}
		return nil
	})
	return out, err
}

// Meta returns a value written with Batch.Meta.
func (s *Store) Meta(ctx context.Context, key string) (string, bool, error) {
	var v string
	found := false
	err := s.read(ctx, "read meta "+key, func(tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = ?`, key).Scan(&v)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		found = err == nil
		return err
	})
	return v, found, err
}
