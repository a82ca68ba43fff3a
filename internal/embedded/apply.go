package embedded

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/stratarag/strata/internal/graph"
)

// Apply writes the batch in one transaction. Every item is an upsert that replaces the stored
// properties; Entity.ComponentID and Entity.Degree are not written, they belong to
// ComputeComponents (a new entity starts at -1 and 0, an updated one keeps its values). A batch
// that refers to missing nodes or whose embeddings do not fit their index fails as a whole (see
// checkReferences and checkDimensions).
func (s *Store) Apply(ctx context.Context, b graph.Batch) error {
	return s.write(ctx, "apply batch", func(tx *sql.Tx) error {
		if err := checkDimensions(ctx, tx, &b); err != nil {
			return err
		}
		steps := []func(context.Context, *sql.Tx, *graph.Batch) error{
			deleteChunks, deleteDocuments, deleteMentions, deleteRelations, deleteEntities, clearSummaries, applyDocuments, applyChunks, applyEntities, applyRelations, applyMentions,
			applySummaryLinks, applyCommunities, applyMeta, checkReferences, bumpGenerations,
		}
		for _, step := range steps {
			if err := step(ctx, tx, &b); err != nil {
				return err
			}
		}
		return nil
	})
}

// eachRow prepares query once and runs it with the args of every item; label names a failing item.
func eachRow[T any](ctx context.Context, tx *sql.Tx, query string, items []T, label func(T) string, args func(T) []any) error {
	if len(items) == 0 {
		return nil
	}
	stmt, err := tx.PrepareContext(ctx, query)
	if err != nil {
		return err
	}
	defer stmt.Close()
	for _, it := range items {
		if _, err := stmt.ExecContext(ctx, args(it)...); err != nil {
			return fmt.Errorf("write %s: %w", label(it), err)
		}
	}
	return nil
}

// deleteChunks removes chunks and their mentions; PART_OF and NEXT are derived from chunk rows
// and the full-text index follows by trigger.
func deleteChunks(ctx context.Context, tx *sql.Tx, b *graph.Batch) error {
	if len(b.DeleteChunks) == 0 {
		return nil
	}
	return deleteChunkRows(ctx, tx, "id", encodeStrings(b.DeleteChunks))
}

// deleteChunkRows removes the chunks that ids (a JSON array) selects, with their mentions.
func deleteChunkRows(ctx context.Context, tx *sql.Tx, column, ids string) error {
	// column is "id" or "document_id", never input.
	sel := `SELECT id FROM chunks WHERE ` + column + ` IN (SELECT value FROM json_each(?))`
	if _, err := tx.ExecContext(ctx, `DELETE FROM mentions WHERE chunk_id IN (`+sel+`)`, ids); err != nil {
		return fmt.Errorf("delete mentions of chunks: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM relation_evidence WHERE chunk_id IN (`+sel+`)`, ids); err != nil {
		return fmt.Errorf("delete relation evidence of chunks: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM chunks WHERE `+column+` IN (SELECT value FROM json_each(?))`, ids); err != nil {
		return fmt.Errorf("delete chunks: %w", err)
	}
	return nil
}

// deleteDocuments removes documents with their chunks.
func deleteDocuments(ctx context.Context, tx *sql.Tx, b *graph.Batch) error {
	if len(b.DeleteDocuments) == 0 {
		return nil
	}
	ids := encodeStrings(b.DeleteDocuments)
	if err := deleteChunkRows(ctx, tx, "document_id", ids); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM documents WHERE id IN (SELECT value FROM json_each(?))`, ids); err != nil {
		return fmt.Errorf("delete documents: %w", err)
	}
	return nil
}

func deleteMentions(ctx context.Context, tx *sql.Tx, b *graph.Batch) error {
	return eachRow(ctx, tx, `DELETE FROM mentions WHERE chunk_id = ? AND entity_id = ?`, b.DeleteMentions,
		func(m graph.MentionKey) string {
			return fmt.Sprintf("deletion of mention %s-%s", m.ChunkID, m.EntityID)
		},
		func(m graph.MentionKey) []any { return []any{m.ChunkID, m.EntityID} })
}

func deleteRelations(ctx context.Context, tx *sql.Tx, b *graph.Batch) error {
	for _, q := range []string{
		`DELETE FROM relation_evidence WHERE source = ? AND target = ?`,
		`DELETE FROM relations WHERE source = ? AND target = ?`,
	} {
		err := eachRow(ctx, tx, q, b.DeleteRelations,
			func(k graph.RelationKey) string { return fmt.Sprintf("deletion of relation %s-%s", k.Source, k.Target) },
			func(k graph.RelationKey) []any {
				k = graph.NewRelationKey(k.Source, k.Target)
				return []any{k.Source, k.Target}
			})
		if err != nil {
			return err
		}
	}
	return nil
}

// deleteEntities removes entities and every row that refers to them.
func deleteEntities(ctx context.Context, tx *sql.Tx, b *graph.Batch) error {
	if len(b.DeleteEntities) == 0 {
		return nil
	}
	const ids = `(SELECT value FROM json_each(?1))`
	for _, q := range []string{
		`DELETE FROM summary_links WHERE member IN ` + ids + ` OR summary IN ` + ids,
		`DELETE FROM relation_evidence WHERE source IN ` + ids + ` OR target IN ` + ids,
		`DELETE FROM relations WHERE source IN ` + ids + ` OR target IN ` + ids,
		`DELETE FROM community_members WHERE entity_id IN ` + ids,
		`DELETE FROM mentions WHERE entity_id IN ` + ids,
		`DELETE FROM entities WHERE id IN ` + ids,
	} {
		if _, err := tx.ExecContext(ctx, q, encodeStrings(b.DeleteEntities)); err != nil {
			return fmt.Errorf("delete entities: %w", err)
		}
	}
	return nil
}

// clearSummaries removes the entities of layer >= 1 and every row that refers to them.
func clearSummaries(ctx context.Context, tx *sql.Tx, b *graph.Batch) error {
	if !b.ClearSummaries {
		return nil
	}
	const summaries = `SELECT id FROM entities WHERE layer >= 1`
	for _, q := range []string{
		`DELETE FROM summary_links WHERE member IN (` + summaries + `) OR summary IN (` + summaries + `)`,
		`DELETE FROM relation_evidence WHERE source IN (` + summaries + `) OR target IN (` + summaries + `)`,
		`DELETE FROM relations WHERE source IN (` + summaries + `) OR target IN (` + summaries + `)`,
		`DELETE FROM community_members WHERE entity_id IN (` + summaries + `)`,
		`DELETE FROM mentions WHERE entity_id IN (` + summaries + `)`,
		`DELETE FROM entities WHERE layer >= 1`,
	} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("clear summary entities: %w", err)
		}
	}
	return nil
}

func applyDocuments(ctx context.Context, tx *sql.Tx, b *graph.Batch) error {
	err := eachRow(ctx, tx, `
		INSERT INTO documents (id, title, source, sha256, metadata, ingested_at) VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET title = excluded.title, source = excluded.source,
			sha256 = excluded.sha256, metadata = excluded.metadata, ingested_at = excluded.ingested_at`,
		b.Documents,
		func(d graph.Document) string { return "document " + d.ID },
		func(d graph.Document) []any {
			return []any{d.ID, d.Title, d.Source, d.SHA256, d.Metadata, encodeTime(d.IngestedAt)}
		})
	if err != nil {
		return err
	}
	// Chunks index their document's title (chunk_text); a renamed document renames its chunks.
	return eachRow(ctx, tx, `UPDATE chunks SET title = ? WHERE document_id = ? AND title <> ?`,
		b.Documents,
		func(d graph.Document) string { return "title of the chunks of document " + d.ID },
		func(d graph.Document) []any { return []any{d.Title, d.ID, d.Title} })
}

func applyChunks(ctx context.Context, tx *sql.Tx, b *graph.Batch) error {
	return eachRow(ctx, tx, `
		INSERT INTO chunks (id, document_id, seq, text, tokens, embedding, first_page, last_page, title)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, coalesce((SELECT title FROM documents WHERE id = ?2), ''))
		ON CONFLICT (id) DO UPDATE SET document_id = excluded.document_id, seq = excluded.seq,
			text = excluded.text, tokens = excluded.tokens, embedding = excluded.embedding,
			first_page = excluded.first_page, last_page = excluded.last_page, title = excluded.title`,
		b.Chunks,
		func(c graph.Chunk) string { return "chunk " + c.ID },
		func(c graph.Chunk) []any {
			return []any{c.ID, c.DocumentID, c.Seq, c.Text, c.Tokens, encodeVector(c.Embedding), c.FirstPage, c.LastPage}
		})
}

// applyEntities upserts the entities entityRowsPerStatement at a time. Every statement that
// writes opens a statement savepoint, and FTS5 writes the terms it holds pending to a new segment
// of its index at every savepoint: one row per statement, as the entities of a batch were
// written, gave entity_text a segment per entity, merged again and again (2 of the 8.5 s the
// mix corpus's documents stage took). The rows are the same, inserted in the same order.
func applyEntities(ctx context.Context, tx *sql.Tx, b *graph.Batch) error {
	return eachRows(ctx, tx,
		`INSERT INTO entities (id, name, type, description, layer, embedding) VALUES `, `(?, ?, ?, ?, ?, ?)`, `
		ON CONFLICT (id) DO UPDATE SET name = excluded.name, type = excluded.type,
			description = excluded.description, layer = excluded.layer, embedding = excluded.embedding`,
		entityRowsPerStatement, b.Entities,
		func(e graph.Entity) string { return "entity " + e.ID },
		func(e graph.Entity) []any {
			return []any{e.ID, e.Name, e.Type, e.Description, e.Layer, encodeVector(e.Embedding)}
		})
}

// entityRowsPerStatement is how many entities one statement of applyEntities writes.
const entityRowsPerStatement = 128

// eachRows runs head, then per rows of items the tuple of placeholders tuple, comma separated,
// then tail: one statement for up to per items, in their order. An error names the items of its
// statement by label, the first and how many.
func eachRows[T any](ctx context.Context, tx *sql.Tx, head, tuple, tail string, per int, items []T, label func(T) string, args func(T) []any) error {
	stmts := map[int]*sql.Stmt{}
	defer func() {
		for _, st := range stmts {
			st.Close()
		}
	}()
	var values []any
	for start := 0; start < len(items); start += per {
		part := items[start:min(start+per, len(items))]
		st, ok := stmts[len(part)]
		if !ok {
			var q strings.Builder
			q.WriteString(head)
			for i := range part {
				if i > 0 {
					q.WriteString(", ")
				}
				q.WriteString(tuple)
			}
			q.WriteString(tail)
			var err error
			if st, err = tx.PrepareContext(ctx, q.String()); err != nil {
				return err
			}
			stmts[len(part)] = st
		}
		values = values[:0]
		for _, it := range part {
			values = append(values, args(it)...)
		}
		if _, err := st.ExecContext(ctx, values...); err != nil {
			if len(part) == 1 {
				return fmt.Errorf("write %s: %w", label(part[0]), err)
			}
			return fmt.Errorf("write %s and %d more: %w", label(part[0]), len(part)-1, err)
		}
	}
	return nil
}

func applyRelations(ctx context.Context, tx *sql.Tx, b *graph.Batch) error {
	label := func(r graph.Relation) string { return fmt.Sprintf("relation %s-%s", r.Source, r.Target) }
	// A relation's evidence is replaced as a whole, like its properties, unless it only adds to
	// it (AddEvidence: the upsert below replaces the items of its chunks).
	var replace []graph.Relation
	for _, r := range b.Relations {
		if !r.AddEvidence {
			replace = append(replace, r)
		}
	}
	err := eachRow(ctx, tx, `DELETE FROM relation_evidence WHERE source = ? AND target = ?`, replace, label,
		func(r graph.Relation) []any {
			k := graph.NewRelationKey(r.Source, r.Target)
			return []any{k.Source, k.Target}
		})
	if err != nil {
		return err
	}
	var evidence []graph.RelationEvidence
	for _, r := range b.Relations {
		k := graph.NewRelationKey(r.Source, r.Target)
		for _, ev := range r.Evidence {
			ev.Source, ev.Target = k.Source, k.Target
			evidence = append(evidence, ev)
		}
	}
	err = eachRow(ctx, tx, `
		INSERT INTO relation_evidence (source, target, chunk_id, description, weight) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (source, target, chunk_id) DO UPDATE SET description = excluded.description, weight = excluded.weight`,
		evidence,
		func(ev graph.RelationEvidence) string {
			return fmt.Sprintf("evidence of relation %s-%s from chunk %s", ev.Source, ev.Target, ev.ChunkID)
		},
		func(ev graph.RelationEvidence) []any {
			return []any{ev.Source, ev.Target, ev.ChunkID, ev.Description, ev.Weight}
		})
	if err != nil {
		return err
	}
	return eachRow(ctx, tx, `
		INSERT INTO relations (source, target, description, weight, chunk_ids) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (source, target) DO UPDATE SET description = excluded.description,
			weight = excluded.weight, chunk_ids = excluded.chunk_ids`,
		b.Relations, label,
		func(r graph.Relation) []any {
			// Relations are undirected; a key in the wrong order still names the same pair.
			k := graph.NewRelationKey(r.Source, r.Target)
			return []any{k.Source, k.Target, r.Description, r.Weight, encodeStrings(r.ChunkIDs)}
		})
}

func applyMentions(ctx context.Context, tx *sql.Tx, b *graph.Batch) error {
	return eachRow(ctx, tx, `
		INSERT INTO mentions (chunk_id, entity_id, name, type, description, subject) VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (chunk_id, entity_id) DO UPDATE SET name = excluded.name, type = excluded.type,
			description = excluded.description, subject = excluded.subject`,
		b.Mentions,
		func(m graph.Mention) string { return fmt.Sprintf("mention %s-%s", m.ChunkID, m.EntityID) },
		func(m graph.Mention) []any {
			return []any{m.ChunkID, m.EntityID, m.Name, m.Type, m.Description, m.Subject}
		})
}

func applySummaryLinks(ctx context.Context, tx *sql.Tx, b *graph.Batch) error {
	return eachRow(ctx, tx, `
		INSERT INTO summary_links (member, summary, description, weight) VALUES (?, ?, ?, ?)
		ON CONFLICT (member, summary) DO UPDATE SET description = excluded.description, weight = excluded.weight`,
		b.SummaryLinks,
		func(l graph.SummaryLink) string { return fmt.Sprintf("summary link %s-%s", l.Member, l.Summary) },
		func(l graph.SummaryLink) []any { return []any{l.Member, l.Summary, l.Description, l.Weight} })
}

// applyCommunities updates report properties only: communities themselves are created by
// ComputeCommunities, so an unknown id means the caller's reports are for an older run.
func applyCommunities(ctx context.Context, tx *sql.Tx, b *graph.Batch) error {
	if len(b.Communities) == 0 {
		return nil
	}
	stmt, err := tx.PrepareContext(ctx, `
		UPDATE communities SET title = ?, summary = ?, report = ?, rating = ?, embedding = ? WHERE id = ?`)
	if err != nil {
		return err
	}
	defer stmt.Close()
	for _, c := range b.Communities {
		res, err := stmt.ExecContext(ctx, c.Title, c.Summary, c.Report, c.Rating, encodeVector(c.Embedding), c.ID)
		if err != nil {
			return fmt.Errorf("write community %s: %w", c.ID, err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return fmt.Errorf("write community %s: %w", c.ID, err)
		}
		if n == 0 {
			return fmt.Errorf("write community %s: no such community (communities are created by ComputeCommunities)", c.ID)
		}
	}
	return nil
}

func applyMeta(ctx context.Context, tx *sql.Tx, b *graph.Batch) error {
	type kv struct{ k, v string }
	items := make([]kv, 0, len(b.Meta))
	var removed []string
	for k, v := range b.Meta {
		if v == "" {
			removed = append(removed, k)
		} else {
			items = append(items, kv{k, v})
		}
	}
	if len(removed) > 0 {
		if _, err := tx.ExecContext(ctx, `DELETE FROM meta WHERE key IN (SELECT value FROM json_each(?))`, encodeStrings(removed)); err != nil {
			return fmt.Errorf("remove meta keys: %w", err)
		}
	}
	return eachRow(ctx, tx, `
		INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
		items,
		func(it kv) string { return "meta " + it.k },
		func(it kv) []any { return []any{it.k, it.v} })
}

// bumpGenerations marks the cached structures the batch may have changed.
func bumpGenerations(ctx context.Context, tx *sql.Tx, b *graph.Batch) error {
	var names []string
	// Documents: a document's title is indexed with its chunks (chunk_text), which the
	// in-memory copy of a Resident reader follows by this generation (textindex.go).
	if len(b.Chunks) > 0 || len(b.DeleteChunks) > 0 || len(b.DeleteDocuments) > 0 || len(b.Documents) > 0 {
		names = append(names, string(graph.ChunkEmbedding))
	}
	if len(b.Entities) > 0 || len(b.DeleteEntities) > 0 || b.ClearSummaries {
		names = append(names, string(graph.EntityEmbedding), genEntityGraph)
	}
	if len(b.Relations) > 0 || len(b.DeleteRelations) > 0 || len(b.SummaryLinks) > 0 {
		names = append(names, genEntityGraph)
	}
	if len(b.Communities) > 0 {
		names = append(names, string(graph.CommunityEmbedding))
	}
	if len(b.Chunks) > 0 || len(b.DeleteChunks) > 0 || len(b.DeleteDocuments) > 0 || len(b.Mentions) > 0 ||
		len(b.DeleteMentions) > 0 || len(b.DeleteEntities) > 0 || b.ClearSummaries {
		names = append(names, genMentions)
	}
	return bumpGeneration(ctx, tx, names...)
}
