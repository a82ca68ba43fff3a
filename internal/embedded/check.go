package embedded

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/stratarag/strata/internal/graph"
)

// A batch is refused, as a whole, when it refers to nodes that exist neither in the store nor in
// the batch, or when its embeddings do not fit their vector index. Storing such a batch would
// either lose relationships silently or make the index unsearchable; refusing it names the bad
// input instead, and matches the Neo4j backend.

// checkReferences fails when an item of b refers to a missing node. It runs inside the Apply
// transaction after b is written, so nodes of the batch itself count as present.
func checkReferences(ctx context.Context, tx *sql.Tx, b *graph.Batch) error {
	var docs, chunks, entities []string
	for _, c := range b.Chunks {
		docs = append(docs, c.DocumentID)
	}
	for _, m := range b.Mentions {
		chunks = append(chunks, m.ChunkID)
		entities = append(entities, m.EntityID)
	}
	for _, r := range b.Relations {
		entities = append(entities, r.Source, r.Target)
		for _, ev := range r.Evidence {
			chunks = append(chunks, ev.ChunkID)
		}
	}
	for _, l := range b.SummaryLinks {
		entities = append(entities, l.Member, l.Summary)
	}
	for _, c := range []struct {
		what, table string
		ids         []string
	}{
		{"chunks refer to documents that do not exist", "documents", docs},
		{"mentions or relation evidence refer to chunks that do not exist", "chunks", chunks},
		{"relations, mentions or summary links refer to entities that do not exist", "entities", entities},
	} {
		if len(c.ids) == 0 {
			continue
		}
		// c.table is one of the constants above, never input.
		rows, err := tx.QueryContext(ctx, `
			SELECT DISTINCT value FROM json_each(?) WHERE value NOT IN (SELECT id FROM `+c.table+`) ORDER BY value`,
			encodeStrings(c.ids))
		if err != nil {
			return err
		}
		var missing []string
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return err
			}
			missing = append(missing, id)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if len(missing) > 0 {
			return fmt.Errorf("%s: %s", c.what, listIDs(missing))
		}
	}
	return nil
}

// listIDs formats ids for an error message, the first ten of them.
func listIDs(ids []string) string {
	const show = 10
	if len(ids) <= show {
		return strings.Join(ids, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(ids[:show], ", "), len(ids)-show)
}

// checkDimensions fails when the embeddings of b have different dimensions within one vector
// index, or another dimension than the index already holds; an index takes the dimension of its
// first embedding. Vectors of different models are never comparable, so mixing them would make
// every search of the index meaningless.
func checkDimensions(ctx context.Context, tx *sql.Tx, b *graph.Batch) error {
	type first struct {
		what string
		dim  int
	}
	dims := map[graph.VectorIndex]first{}
	add := func(index graph.VectorIndex, what string, v []float32) error {
		if len(v) == 0 {
			return nil
		}
		f, ok := dims[index]
		if !ok {
			dims[index] = first{what, len(v)}
		} else if f.dim != len(v) {
			return fmt.Errorf("%s has a %d-dimensional embedding but %s a %d-dimensional one", what, len(v), f.what, f.dim)
		}
		return nil
	}
	for _, c := range b.Chunks {
		if err := add(graph.ChunkEmbedding, "chunk "+c.ID, c.Embedding); err != nil {
			return err
		}
	}
	for _, e := range b.Entities {
		if err := add(graph.EntityEmbedding, "entity "+e.ID, e.Embedding); err != nil {
			return err
		}
	}
	for _, c := range b.Communities {
		if err := add(graph.CommunityEmbedding, "community "+c.ID, c.Embedding); err != nil {
			return err
		}
	}
	indexes := make([]graph.VectorIndex, 0, len(dims))
	for index := range dims {
		indexes = append(indexes, index)
	}
	slices.Sort(indexes)
	for _, index := range indexes {
		f := dims[index]
		var stored int
		err := tx.QueryRowContext(ctx, `SELECT dim FROM index_dims WHERE name = ?`, string(index)).Scan(&stored)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			if _, err := tx.ExecContext(ctx, `INSERT INTO index_dims (name, dim) VALUES (?, ?)`, string(index), f.dim); err != nil {
				return fmt.Errorf("record dimension of %s: %w", index, err)
			}
		case err != nil:
			return fmt.Errorf("read dimension of %s: %w", index, err)
		case stored != f.dim:
			return fmt.Errorf("%s has a %d-dimensional embedding but the %s index holds %d-dimensional ones (embeddings of another model?)",
				f.what, f.dim, index, stored)
		}
	}
	return nil
}
