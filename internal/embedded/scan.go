package embedded

import (
	"context"
	"database/sql"
	"slices"

	"github.com/stratarag/strata/internal/graph"
)

// Column lists and their scanners, shared by every query that returns whole nodes. A column list
// takes a table alias so that it can be used in joins.

func documentCols(a string) string {
	return a + ".id, " + a + ".title, " + a + ".source, " + a + ".sha256, " + a + ".metadata, " + a + ".ingested_at"
}

func scanDocument(sc scanner, extra ...any) (graph.Document, error) {
	var d graph.Document
	var at string
	if err := sc.Scan(append([]any{&d.ID, &d.Title, &d.Source, &d.SHA256, &d.Metadata, &at}, extra...)...); err != nil {
		return d, err
	}
	var err error
	d.IngestedAt, err = decodeTime(at)
	return d, err
}

// chunkCols selects a chunk in a store of schema version: one older than pagesVersion, which a
// reader opens as it is, has no page columns and gives 0 for them.
func chunkCols(a string, version int64) string {
	pages := a + ".first_page, " + a + ".last_page"
	if version < pagesVersion {
		pages = "0, 0"
	}
	return a + ".id, " + a + ".document_id, " + a + ".seq, " + a + ".text, " + a + ".tokens, " + a + ".embedding, " + pages
}

func scanChunk(sc scanner, extra ...any) (graph.Chunk, error) {
	var c graph.Chunk
	var emb []byte
	if err := sc.Scan(append([]any{&c.ID, &c.DocumentID, &c.Seq, &c.Text, &c.Tokens, &emb, &c.FirstPage, &c.LastPage}, extra...)...); err != nil {
		return c, err
	}
	var err error
	c.Embedding, err = decodeVector(emb)
	return c, err
}

func entityCols(a string) string { return entityColsWith(a, a+".embedding") }

// entityColsNoEmbedding selects what entityCols does with a NULL embedding, for reads that never
// use vectors.
func entityColsNoEmbedding(a string) string { return entityColsWith(a, "NULL") }

// entityColsWith is the column list scanEntity reads, with embedding as the vector column.
func entityColsWith(a, embedding string) string {
	return a + ".id, " + a + ".name, " + a + ".type, " + a + ".description, " + a + ".layer, " + embedding + ", " +
		a + ".component_id, " + a + ".degree"
}

func scanEntity(sc scanner, extra ...any) (graph.Entity, error) {
	var e graph.Entity
	var emb []byte
	if err := sc.Scan(append([]any{&e.ID, &e.Name, &e.Type, &e.Description, &e.Layer, &emb, &e.ComponentID, &e.Degree}, extra...)...); err != nil {
		return e, err
	}
	var err error
	e.Embedding, err = decodeVector(emb)
	return e, err
}

func relationCols(a string) string {
	return a + ".source, " + a + ".target, " + a + ".description, " + a + ".weight, " + a + ".chunk_ids"
}

func scanRelation(sc scanner, extra ...any) (graph.Relation, error) {
	var r graph.Relation
	var ids string
	if err := sc.Scan(append([]any{&r.Source, &r.Target, &r.Description, &r.Weight, &ids}, extra...)...); err != nil {
		return r, err
	}
	var err error
	r.ChunkIDs, err = decodeStrings(ids)
	return r, err
}

func communityCols(a string) string {
	return a + ".id, " + a + ".level, " + a + ".community_id, " + a + ".parent_id, " + a + ".title, " + a + ".summary, " +
		a + ".report, " + a + ".rating, " + a + ".size, " + a + ".embedding"
}

func scanCommunity(sc scanner, extra ...any) (graph.Community, error) {
	var c graph.Community
	var emb []byte
	if err := sc.Scan(append([]any{&c.ID, &c.Level, &c.CommunityID, &c.ParentID, &c.Title, &c.Summary, &c.Report, &c.Rating, &c.Size, &emb}, extra...)...); err != nil {
		return c, err
	}
	var err error
	c.Embedding, err = decodeVector(emb)
	return c, err
}

// scanScoredChunk scans chunkCols followed by a score.
func scanScoredChunk(sc scanner, _ ...any) (graph.ScoredChunk, error) {
	var c graph.ScoredChunk
	var err error
	c.Chunk, err = scanChunk(sc, &c.Score)
	return c, err
}

// scanScoredCommunity scans communityCols followed by a score and a JSON array of seed ids.
func scanScoredCommunity(sc scanner, _ ...any) (graph.ScoredCommunity, error) {
	var c graph.ScoredCommunity
	var seeds string
	var err error
	if c.Community, err = scanCommunity(sc, &c.Score, &seeds); err != nil {
		return c, err
	}
	if c.Seeds, err = decodeStrings(seeds); err != nil {
		return c, err
	}
	slices.Sort(c.Seeds)
	return c, nil
}

// scanner is what *sql.Row and *sql.Rows have in common.
// scanID scans a single id column.
func scanID(sc scanner, _ ...any) (string, error) {
	var id string
	err := sc.Scan(&id)
	return id, err
}

type scanner interface {
	Scan(dest ...any) error
}

// querier is what *sql.Tx and cachedTx have in common.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// queryAll runs a query and scans every row with scan.
func queryAll[T any](ctx context.Context, tx querier, scan func(scanner, ...any) (T, error), query string, args ...any) ([]T, error) {
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}
