package cypher

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"golang.org/x/sync/errgroup"

	"github.com/stratarag/strata/internal/graph"
)

// awaitSeconds bounds how long Open and a new vector index wait for indexes to come online.
const awaitSeconds = 300

// vectorIndexes are the store's vector indexes, in the order they are created.
var vectorIndexes = []graph.VectorIndex{graph.ChunkEmbedding, graph.EntityEmbedding, graph.CommunityEmbedding}

// vectorIndexQuery names the statement that creates each vector index.
func vectorIndexQuery(idx graph.VectorIndex) (string, bool) {
	switch idx {
	case graph.ChunkEmbedding:
		return qSchemaVectorChunk, true
	case graph.EntityEmbedding:
		return qSchemaVectorEntity, true
	case graph.CommunityEmbedding:
		return qSchemaVectorCommunity, true
	}
	return "", false
}

// schemaState is what ensureSchema reads before it changes anything.
type schemaState struct {
	chunkText      []string
	chunkTextFound bool
	have           map[schemaObject]bool
	online         bool
	dims           map[graph.VectorIndex]int
	quantized      []graph.VectorIndex
	dimValue       string
	dimRecorded    bool
}

// readSchema reads the chunk_text index, the schema, the vector indexes and the recorded
// dimension concurrently: a store opened for one query (a fresh strata query process) would
// otherwise wait for four round trips one after the other before its first search.
func (s *Store) readSchema(ctx context.Context) (st schemaState, err error) {
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() (err error) { st.chunkText, st.chunkTextFound, err = s.readChunkTextIndex(gctx); return err })
	g.Go(func() (err error) { st.have, st.online, err = s.existingSchema(gctx); return err })
	g.Go(func() (err error) { st.dims, st.quantized, err = s.loadVectorDims(gctx); return err })
	g.Go(func() (err error) {
		st.dimValue, st.dimRecorded, err = s.Meta(gctx, graph.MetaEmbeddingDims)
		return err
	})
	return st, g.Wait()
}

// ensureSchema creates what Open promises, from what readSchema found: uniqueness constraints,
// range and full-text indexes, and the vector indexes whose dimension is known. Schema
// statements cannot share a transaction with reads or data writes, so each runs in its own.
func (s *Store) ensureSchema(ctx context.Context, st schemaState) error {
	upgraded, err := s.upgradeChunkText(ctx, st.chunkTextFound, st.chunkText)
	if err != nil {
		return err
	}
	for _, o := range schemaObjects {
		if st.have[o] && !(upgraded && o.name == string(graph.ChunkText)) {
			continue
		}
		st.online = false
		if err := s.schemaWrite(ctx, o.statement, nil); err != nil {
			return fmt.Errorf("create schema: %w", err)
		}
	}
	for _, idx := range st.quantized {
		st.online = false
		if err := s.rebuildVectorIndex(ctx, idx, st.dims[idx]); err != nil {
			return err
		}
	}
	s.dimsMu.Lock()
	s.dims = st.dims
	s.dimsMu.Unlock()

	if st.dimRecorded {
		dim, err := strconv.Atoi(st.dimValue)
		if err != nil || dim <= 0 {
			return fmt.Errorf("meta %s = %q is not a positive integer", graph.MetaEmbeddingDims, st.dimValue)
		}
		want := map[graph.VectorIndex]int{}
		for _, idx := range vectorIndexes {
			want[idx] = dim
		}
		if err := s.ensureVectorIndexes(ctx, want); err != nil {
			return err
		}
	}
	if st.online {
		return nil
	}
	return s.awaitIndexes(ctx)
}

// schemaObject is a constraint or index that a schema statement creates, by name.
type schemaObject struct {
	statement, name string
	constraint      bool
}

// schemaObjects are the constraints, range and full-text indexes of ensureSchema, in the order
// they are created.
var schemaObjects = []schemaObject{
	{qSchemaConstraintDocument, "document_id", true},
	{qSchemaConstraintChunk, "chunk_id", true},
	{qSchemaConstraintEntity, "entity_id", true},
	{qSchemaConstraintCommunity, "community_id", true},
	{qSchemaConstraintMeta, "strata_meta_key", true},
	{qSchemaIndexEntityLayer, "entity_layer", false},
	{qSchemaIndexCommunityLevel, "community_level", false},
	{qSchemaFulltextChunk, string(graph.ChunkText), false},
	{qSchemaFulltextEntity, string(graph.EntityText), false},
	{qSchemaConstraintArch, "arch_community_id", true},
	{qSchemaIndexArchLayer, "arch_community_layer", false},
	{qSchemaConstraintLease, "strata_lease_id", true},
}

// existingSchema reads which of schemaObjects exist, in one statement: each CREATE … IF NOT
// EXISTS is a write transaction of its own, which a store opened for one query (a fresh strata
// query process) would otherwise pay a dozen times over. online reports whether every index of
// the database is online (awaitIndexes has nothing to wait for).
func (s *Store) existingSchema(ctx context.Context) (have map[schemaObject]bool, online bool, err error) {
	rows, err := s.readRows(ctx, qSchemaExisting, nil)
	if err != nil {
		return nil, false, fmt.Errorf("list the schema: %w", err)
	}
	indexes, constraints := map[string]bool{}, map[string]bool{}
	online = true
	for _, row := range rows {
		f := fields{m: row}
		name, owner, state := f.str("name"), f.str("owningConstraint"), f.str("state")
		if f.err != nil {
			return nil, false, fmt.Errorf("list the schema: %w", f.err)
		}
		indexes[name] = true
		if owner != "" {
			constraints[owner] = true
		}
		online = online && state == "ONLINE"
	}
	have = map[schemaObject]bool{}
	for _, o := range schemaObjects {
		have[o] = (o.constraint && constraints[o.name]) || (!o.constraint && indexes[o.name])
	}
	return have, online, nil
}

// chunkTextProperties are the properties the chunk_text index covers, in index order.
var chunkTextProperties = []string{"title", "text"}

// readChunkTextIndex reads the properties the chunk_text index covers, and whether it exists.
func (s *Store) readChunkTextIndex(ctx context.Context) (props []string, found bool, err error) {
	rows, err := s.readRows(ctx, qReadChunkTextIndex, nil)
	if err != nil {
		return nil, false, fmt.Errorf("read the chunk_text index: %w", err)
	}
	if len(rows) == 0 {
		return nil, false, nil
	}
	list, _ := rows[0]["properties"].([]any)
	for _, p := range list {
		name, _ := p.(string)
		props = append(props, name)
	}
	return props, true, nil
}

// upgradeChunkText replaces a chunk_text index made by an older strata, which covered only the
// text (found over props, as readChunkTextIndex read them), after copying document titles onto
// the chunks; ensureSchema then creates the new one. It reports whether it dropped the index.
func (s *Store) upgradeChunkText(ctx context.Context, found bool, props []string) (bool, error) {
	if !found || slices.Equal(props, chunkTextProperties) {
		return false, nil
	}
	if err := s.run.auto(ctx, s.q.get(qWriteChunkTitles), nil); err != nil {
		return false, fmt.Errorf("copy document titles onto chunks: %w", err)
	}
	if err := s.schemaWrite(ctx, qSchemaIndexDrop, map[string]any{"name": string(graph.ChunkText)}); err != nil {
		return false, fmt.Errorf("drop the chunk_text index over %v: %w", props, err)
	}
	return true, nil
}

func (s *Store) schemaWrite(ctx context.Context, name string, params map[string]any) error {
	return s.run.write(ctx, func(t tx) error {
		_, err := t.run(ctx, s.q.get(name), params)
		return err
	})
}

func (s *Store) awaitIndexes(ctx context.Context) error {
	err := s.run.read(ctx, func(t tx) error {
		_, err := t.run(ctx, s.q.get(qSchemaAwait), map[string]any{"timeoutSeconds": int64(awaitSeconds)})
		return err
	})
	if err != nil {
		return fmt.Errorf("wait for indexes to come online: %w", err)
	}
	return nil
}

// loadVectorDims reads the dimension of every strata vector index on the server, and which of
// them quantize vectors.
func (s *Store) loadVectorDims(ctx context.Context) (map[graph.VectorIndex]int, []graph.VectorIndex, error) {
	rows, err := s.readRows(ctx, qSchemaVectorIndexes, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("list vector indexes: %w", err)
	}
	dims := map[graph.VectorIndex]int{}
	var quantized []graph.VectorIndex
	for _, row := range rows {
		f := fields{m: row}
		name, dim, q := graph.VectorIndex(f.str("name")), f.int("dimensions"), f.bool("quantized")
		if f.err != nil {
			return nil, nil, fmt.Errorf("list vector indexes: %w", f.err)
		}
		dims[name] = int(dim)
		if q {
			quantized = append(quantized, name)
		}
	}
	return dims, quantized, nil
}

// rebuildVectorIndex replaces an index made with quantization (Neo4j's default, which strata's
// earlier versions kept) by an exact one of the same dimension. Quantized scores are off by up
// to 0.05 and miss neighbours, which reorders rankings; the rebuild reads the stored embeddings.
func (s *Store) rebuildVectorIndex(ctx context.Context, idx graph.VectorIndex, dim int) error {
	create, known := vectorIndexQuery(idx)
	if !known {
		return fmt.Errorf("unknown vector index %q", idx)
	}
	if err := s.schemaWrite(ctx, qSchemaIndexDrop, map[string]any{"name": string(idx)}); err != nil {
		return fmt.Errorf("drop quantized vector index %s: %w", idx, err)
	}
	if err := s.schemaWrite(ctx, create, map[string]any{"dimensions": int64(dim)}); err != nil {
		return fmt.Errorf("recreate vector index %s without quantization: %w", idx, err)
	}
	return nil
}

// vectorDim returns the dimension of a vector index, asking the server when this process has
// not seen the index yet (another process may have created it). ok is false when the index
// does not exist, that is when no embeddings were ever written to it.
func (s *Store) vectorDim(ctx context.Context, idx graph.VectorIndex) (dim int, ok bool, err error) {
	dims, err := s.vectorDims(ctx, map[graph.VectorIndex]int{idx: 0}, false)
	dim, ok = dims[idx]
	return dim, ok, err
}

// ensureVectorIndexes creates the vector indexes of want that do not exist, with the dimension
// want gives each, and fails if one exists with another dimension: Neo4j would silently leave
// such vectors out of the index, so searches would miss them. The indexes it creates are awaited
// together, since every schema change also empties the server's plan cache.
func (s *Store) ensureVectorIndexes(ctx context.Context, want map[graph.VectorIndex]int) error {
	have, err := s.vectorDims(ctx, want, false)
	if err != nil {
		return err
	}
	created := false
	for _, idx := range vectorIndexes {
		dim, ok := want[idx]
		if !ok {
			continue
		}
		if d, ok := have[idx]; ok {
			if err := checkDim(idx, d, dim); err != nil {
				return err
			}
			continue
		}
		name, _ := vectorIndexQuery(idx)
		if err := s.schemaWrite(ctx, name, map[string]any{"dimensions": int64(dim)}); err != nil {
			return fmt.Errorf("create vector index %s: %w", idx, err)
		}
		created = true
	}
	if !created {
		return nil
	}
	if err := s.awaitIndexes(ctx); err != nil {
		return err
	}
	// Re-read rather than trust want: a concurrent writer may have won the race with another
	// dimension, and IF NOT EXISTS would have kept its index.
	if have, err = s.vectorDims(ctx, want, true); err != nil {
		return err
	}
	for _, idx := range vectorIndexes {
		dim, ok := want[idx]
		if !ok {
			continue
		}
		d, ok := have[idx]
		if !ok {
			return fmt.Errorf("vector index %s was created but is not listed", idx)
		}
		if err := checkDim(idx, d, dim); err != nil {
			return err
		}
	}
	return nil
}

// vectorDims returns the dimensions of the vector indexes this process knows of, asking the
// server when one of want is not known yet (another process may have created it) or reload is
// set.
func (s *Store) vectorDims(ctx context.Context, want map[graph.VectorIndex]int, reload bool) (map[graph.VectorIndex]int, error) {
	s.dimsMu.Lock()
	defer s.dimsMu.Unlock()
	for idx := range want {
		if _, ok := s.dims[idx]; !ok {
			reload = true
		}
	}
	if reload {
		dims, _, err := s.loadVectorDims(ctx)
		if err != nil {
			return nil, err
		}
		s.dims = dims
	}
	return maps.Clone(s.dims), nil
}

func checkDim(idx graph.VectorIndex, have, want int) error {
	if have != want {
		return fmt.Errorf("vector index %s holds %d-dimensional embeddings, got %d-dimensional ones "+
			"(did the embedding model change? use a new database or drop the index to re-embed)",
			idx, have, want)
	}
	return nil
}
