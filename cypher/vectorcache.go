package cypher

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/topk"
)

// metaChunkGeneration is the StrataMeta key of the counter that Apply bumps whenever it writes
// or deletes chunks (bump_generation.cypher), as metaEntityGraphGeneration counts writes of
// the entity graph.
const metaChunkGeneration = "chunks.generation"

// residentIndexes are the vector indexes a resident store searches in memory: the statement
// that loads an index's vectors and the generation counter that every write of them moves on.
// Communities are left to Neo4j: global mode asks for a few of them, which the index answers
// quickly.
var residentIndexes = map[graph.VectorIndex]struct{ load, generation string }{
	graph.EntityEmbedding: {qReadEntityVectors, metaEntityGraphGeneration},
	graph.ChunkEmbedding:  {qReadChunkVectors, metaChunkGeneration},
}

// residentVectors is a resident store's in-memory copy of one vector index, searched exactly.
// Neo4j's HNSW index answers a query for hi mode's 200 entity candidates by visiting 1 000
// (vectorCandidates), slower than a scan of the same vectors in memory, which also finds the
// true nearest ones (bench/README.md, neo4jquery). The copy belongs to one generation of the index's counter
// (residentIndexes), which each search reads (once per read scope) to tell whether the copy
// is current.
type residentVectors struct {
	mu     sync.Mutex
	loaded bool
	gen    string
	dim    int
	ids    []string
	vecs   []float32 // the vectors, one after the other
	norms  []float64 // their lengths
	index  map[string]int
	// unindexed are the stored embeddings the index leaves out (another dimension, or
	// length 0), kept so that the copy answers embedding lookups as the database would.
	unindexed map[string][]float32
}

// residentVectorSearch answers VectorSearch from the in-memory copy of index, loading it first
// when the generation moved on; ok is false for an index that is not kept in memory. dim is
// the index's dimension: vectors of another dimension are not in Neo4j's index, and neither
// are vectors of length 0, so the copy's search leaves them out too.
func (s *Store) residentVectorSearch(ctx context.Context, index graph.VectorIndex, vec []float32, k, dim int) (hits []graph.Hit, ok bool, err error) {
	if _, ok := residentIndexes[index]; !ok {
		return nil, false, nil
	}
	err = s.withResidentVectors(ctx, index, dim, func(v *residentVectors) { hits = v.search(vec, k) })
	return hits, true, err
}

// withResidentVectors calls f with the current copy of index (one of residentIndexes), loading
// it first when the generation moved on; f must not keep the copy's slices.
func (s *Store) withResidentVectors(ctx context.Context, index graph.VectorIndex, dim int, f func(*residentVectors)) error {
	src, ok := residentIndexes[index]
	if !ok {
		return fmt.Errorf("no in-memory copy of vector index %s", index)
	}
	gen, err := s.generation(ctx, src.generation)
	if err != nil {
		return err
	}
	s.vectorsMu.Lock()
	v := s.vectors[index]
	if v == nil {
		v = &residentVectors{}
		s.vectors[index] = v
	}
	s.vectorsMu.Unlock()
	v.mu.Lock()
	defer v.mu.Unlock()
	if !v.loaded || v.gen != gen || v.dim != dim {
		if err := s.loadCopy(ctx, v, index, src.load, src.generation, gen, dim); err != nil {
			return err
		}
	}
	f(v)
	return nil
}

// loadCopy loads copy v of index for generation gen: from the snapshot in Config.SnapshotDir
// when it is of that generation, else from Neo4j, and then writes the snapshot (a failure to
// write it is logged, never fatal: the next process loads from Neo4j again).
func (s *Store) loadCopy(ctx context.Context, v *residentVectors, index graph.VectorIndex, statement, key, gen string, dim int) error {
	if s.snapshotDir == "" {
		return s.loadVectors(ctx, v, statement, key, dim)
	}
	path := snapshotPath(s.snapshotDir, string(index))
	start := time.Now()
	err := readSnapshot(path, gen, dim, v, !s.resident)
	if err == nil {
		s.log.Debug().Str("snapshot", path).Int("vectors", len(v.ids)).Dur("took", time.Since(start)).Msg("copy read")
		return nil
	}
	if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, errSnapshotStale) {
		s.log.Warn().Err(err).Msg("vector snapshot refused; loading from Neo4j")
	}
	if err := s.snapshotWritable(); err != nil {
		return err
	}
	if err := s.loadVectors(ctx, v, statement, key, dim); err != nil {
		return err
	}
	if err := writeSnapshot(path, v); err != nil {
		s.log.Warn().Err(err).Str("snapshot", path).Msg("write vector snapshot: the next process loads the vectors from Neo4j again (--data-dir names a writable directory for them)")
	}
	return nil
}

// embedding returns a copy of the stored embedding of id, nil when it has none.
func (v *residentVectors) embedding(id string) []float32 {
	if i, ok := v.index[id]; ok {
		return slices.Clone(v.vecs[i*v.dim : (i+1)*v.dim])
	}
	return slices.Clone(v.unindexed[id])
}

// generationKeys are the counters of what a resident store keeps copies of, read together once
// per read scope, the ingest state that strata serve reports with every answer
// (graph.ReadIngestState) and the embedding model a query process checks its embedder against,
// which MetaValues then answers from the same read.
var generationKeys = []string{
	metaEntityGraphGeneration, metaChunkGeneration, metaMentionGeneration, metaCommunityGeneration, metaDocumentGeneration,
	metaComponentGeneration,
	graph.MetaIngestState, graph.MetaIngestStarted, graph.MetaIngestFinished, graph.MetaIngestFailed, graph.MetaStructureStale,
	graph.MetaEmbeddingModel, graph.MetaEmbeddingDims,
}

// generation reads the counter under key: once per read scope (graph.WithReadScope), with the
// other generationKeys in the same statement, else on its own.
func (s *Store) generation(ctx context.Context, key string) (string, error) {
	vals, err := s.generations(ctx)
	return vals[key], err
}

// projectionKey is where generations records whether the GDS catalog holds the projection of
// the entity graph generation it read: "true" when it does.
const projectionKey = "\x00projection"

// generations reads generationKeys, and for a resident store on a server with GDS under
// projectionKey whether the projection of the entity graph generation exists (its copy of the
// projection serves only then), in one statement: once per read scope, or on every call outside
// one.
func (s *Store) generations(ctx context.Context) (map[string]string, error) {
	read := func() (map[string]string, error) {
		// s.resident first: a store opened for one query reads its generations while Open
		// is still detecting s.gds.
		if !s.resident || s.gds == "" {
			return s.readMetaValues(ctx, generationKeys)
		}
		rows, err := s.readRows(ctx, qReadGenerations, map[string]any{
			"keys": generationKeys, "entityGraphKey": metaEntityGraphGeneration, "prefix": s.projectionPrefix,
		})
		if err != nil {
			if ctx.Err() != nil {
				return nil, err
			}
			// GDS refusing the call must not stop the copies that do not need it: without
			// the answer the projection counts as missing, and paths come from the
			// statements.
			return s.readMetaValues(ctx, generationKeys)
		}
		out := make(map[string]string, len(generationKeys)+1)
		for _, row := range rows {
			f := fields{m: row}
			if k, v := f.str("key"), f.str("value"); v != "" {
				out[k] = v
			}
			if f.bool("projection") {
				out[projectionKey] = "true"
			}
			if f.err != nil {
				return nil, fmt.Errorf("cypher: generations: %w", f.err)
			}
		}
		return out, nil
	}
	if scope := graph.ReadScopeOf(ctx); scope != nil {
		return scope.Values(read)
	}
	return read()
}

// loadVectors replaces the copy v by the vectors statement reads, with the generation under
// key they belong to; the caller holds v.mu.
func (s *Store) loadVectors(ctx context.Context, v *residentVectors, statement, key string, dim int) error {
	start := time.Now()
	rows, err := s.readRows(ctx, statement, map[string]any{"key": key})
	if err != nil {
		return fmt.Errorf("load the vectors: %w", err)
	}
	v.reset("", dim, len(rows))
	for _, row := range rows {
		f := fields{m: row}
		if v.gen == "" {
			v.gen = f.str("generation")
		}
		id, emb := f.str("id"), f.vector("embedding")
		if f.err != nil {
			return fmt.Errorf("load the vectors: %w", f.err)
		}
		v.add(id, emb)
	}
	v.loaded = true
	s.copyLoaded(statement, len(rows), start)
	return nil
}

// reset empties the copy for n rows of generation gen and dimension dim.
func (v *residentVectors) reset(gen string, dim, n int) {
	v.loaded, v.gen, v.dim = false, gen, dim
	v.ids, v.vecs, v.norms = v.ids[:0], v.vecs[:0], v.norms[:0]
	v.index, v.unindexed = make(map[string]int, n), map[string][]float32{}
}

// add adds the stored embedding of id: to the vectors searched when the index holds it (of the
// copy's dimension and not of length 0), else to the unindexed ones.
func (v *residentVectors) add(id string, emb []float32) {
	norm := length(emb)
	if len(emb) != v.dim || norm == 0 {
		v.unindexed[id] = emb
		return
	}
	v.index[id] = len(v.ids)
	v.ids, v.norms = append(v.ids, id), append(v.norms, norm)
	v.vecs = append(v.vecs, emb...)
}

// search returns the k vectors nearest to vec by cosine, scored (1+cos)/2 in float32 as Neo4j
// scores, best first and by id among equal scores.
func (v *residentVectors) search(vec []float32, k int) []graph.Hit {
	norm := length(vec)
	if norm == 0 || len(vec) != v.dim {
		return nil
	}
	best := topk.New(k, func(a, b graph.Hit) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	for i, id := range v.ids {
		dot := dot64(vec, v.vecs[i*v.dim:(i+1)*v.dim])
		// Neo4j's scores are float32s: rounded the same way, values that only rounding tells
		// apart (cosines equal in exact arithmetic) tie, and ties go by id, as the index's do.
		score := float64(float32((1 + dot/(norm*v.norms[i])) / 2))
		best.Add(graph.Hit{ID: id, Score: score})
	}
	return best.Items()
}

// length is the Euclidean length of vec.
func length(vec []float32) float64 {
	var sum float64
	for _, x := range vec {
		sum += float64(x) * float64(x)
	}
	return math.Sqrt(sum)
}

// dot64 is the inner product of a and b (of a's length) in float64, over four independent sums,
// which keeps the CPU's pipelines busy: twice as fast as one sum, and as exact for ranking.
func dot64(a, b []float32) float64 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += float64(a[i]) * float64(b[i])
		s1 += float64(a[i+1]) * float64(b[i+1])
		s2 += float64(a[i+2]) * float64(b[i+2])
		s3 += float64(a[i+3]) * float64(b[i+3])
	}
	for ; i < len(a); i++ {
		s0 += float64(a[i]) * float64(b[i])
	}
	return (s0 + s1) + (s2 + s3)
}
