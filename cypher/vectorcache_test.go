package cypher

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/stratarag/strata/internal/graph"
)

// TestResidentVectorSearch: a resident store's in-memory entity and chunk searches find what
// the Neo4j indexes find on a graph small enough for them to be exact (same ids, same order,
// scores within float32 rounding), leave out nodes without an embedding, and see nodes written
// after their first search, by this process or another one.
func TestResidentVectorSearch(t *testing.T) {
	plain, resident := residentPair(t)
	ctx := context.Background()
	if err := plain.Apply(ctx, vectorBatch()); err != nil {
		t.Fatal(err)
	}
	same := func(when string) {
		t.Helper()
		sameSearches(t, when, plain, resident)
	}
	same("first load")
	// Written through the other store: only the generations tell the resident one.
	if err := plain.Apply(ctx, vectorBatchMore()); err != nil {
		t.Fatal(err)
	}
	same("after a write by another process")
	for index, want := range map[graph.VectorIndex]string{graph.EntityEmbedding: "f", graph.ChunkEmbedding: "c5"} {
		hits, err := resident.VectorSearch(ctx, index, []float32{0, 0, 2}, 1)
		if err != nil || len(hits) != 1 || hits[0].ID != want {
			t.Errorf("%s: nearest to (0,0,2) after the write = %v, %v; want %s", index, hits, err, want)
		}
	}
	// A deleted chunk leaves the copy.
	if err := plain.Apply(ctx, graph.Batch{DeleteChunks: []string{"c5"}}); err != nil {
		t.Fatal(err)
	}
	same("after a delete")
}

func vectorEntity(id string, emb ...float32) graph.Entity {
	return graph.Entity{ID: id, Name: id, Type: "T", Embedding: emb}
}

func vectorChunk(id string, seq int, emb ...float32) graph.Chunk {
	return graph.Chunk{ID: id, DocumentID: "d", Seq: seq, Text: id, Embedding: emb}
}

// vectorBatch is a few entities and chunks with 3-dimensional embeddings (some tied, one
// without).
func vectorBatch() graph.Batch {
	return graph.Batch{
		Documents: []graph.Document{{ID: "d", Metadata: "{}"}},
		Chunks: []graph.Chunk{vectorChunk("c1", 0, 1, 0, 0), vectorChunk("c2", 1, 0.6, 0.8, 0), vectorChunk("c3", 2),
			vectorChunk("c4", 3, 0, -1, 0)},
		Entities: []graph.Entity{
			vectorEntity("a", 1, 0, 0), vectorEntity("b", 0.8, 0.6, 0), vectorEntity("c", 0, 1, 0), vectorEntity("d", -1, 0, 0),
			vectorEntity("e", 0.8, 0.6, 0), vectorEntity("no-embedding"),
		},
	}
}

// vectorBatchMore adds an entity f and a chunk c5 near (0, 0, 1) to vectorBatch's.
func vectorBatchMore() graph.Batch {
	return graph.Batch{Entities: []graph.Entity{vectorEntity("f", 0, 0, 1)}, Chunks: []graph.Chunk{vectorChunk("c5", 4, 0, 0.1, 1)}}
}

// sameSearches checks that got answers the entity and chunk vector searches of a few queries
// and k as the index of want does.
func sameSearches(t *testing.T, when string, want, got *Store) {
	t.Helper()
	ctx := t.Context()
	for _, index := range []graph.VectorIndex{graph.EntityEmbedding, graph.ChunkEmbedding} {
		for _, q := range [][]float32{{1, 0, 0}, {0.5, 0.5, 0}, {0, 0, 1}, {-3, 1, 0}} {
			for _, k := range []int{1, 2, 10} {
				w, err := want.VectorSearch(ctx, index, q, k)
				if err != nil {
					t.Fatal(err)
				}
				g, err := got.VectorSearch(ctx, index, q, k)
				if err != nil {
					t.Fatal(err)
				}
				if !sameHits(g, w) {
					t.Errorf("%s: %s search %v k=%d = %s, index = %s", when, index, q, k, hitsString(g), hitsString(w))
				}
			}
		}
	}
}

// TestSnapshots: stores with a snapshot directory (fresh strata query processes) search what
// the index finds and link documents as the statement does. The first process of a generation
// loads the vectors and the mentions from Neo4j and writes the snapshots; the next ones read
// them and send neither the loads nor the statements they replace; a write by another process
// makes them stale, and a damaged snapshot is loaded again.
func TestSnapshots(t *testing.T) {
	_, cfg := emptyServer(t)
	plain := openTestStore(t, cfg)
	b := vectorBatch()
	b.Mentions = []graph.Mention{{ChunkID: "c1", EntityID: "a"}, {ChunkID: "c1", EntityID: "b"}, {ChunkID: "c2", EntityID: "b"}, {ChunkID: "c4", EntityID: "d"}}
	if err := plain.Apply(t.Context(), b); err != nil {
		t.Fatal(err)
	}
	cfg.SnapshotDir = t.TempDir()
	process := func(when string, wantLoads int) {
		t.Helper()
		checkSnapshotReader(t, when, plain, openTestStore(t, cfg), wantLoads, false)
	}
	process("first process", 3)
	for _, path := range []string{snapshotPath(cfg.SnapshotDir, string(graph.EntityEmbedding)),
		snapshotPath(cfg.SnapshotDir, string(graph.ChunkEmbedding)), mentionSnapshotPath(cfg.SnapshotDir)} {
		if _, err := os.Stat(path); err != nil {
			t.Fatalf("no snapshot after the first process: %v", err)
		}
	}
	process("second process", 0)
	more := vectorBatchMore()
	more.Mentions = []graph.Mention{{ChunkID: "c5", EntityID: "f"}}
	if err := plain.Apply(t.Context(), more); err != nil {
		t.Fatal(err)
	}
	process("after a write by another process", 3)
	process("the next process", 0)
	path := snapshotPath(cfg.SnapshotDir, string(graph.EntityEmbedding))
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data[snapshotHeaderSize+5] ^= 0x40 // a bit of a vector
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	process("entity snapshot damaged", 1)
	process("after it was written again", 0)
	if err := os.WriteFile(mentionSnapshotPath(cfg.SnapshotDir), []byte("STRATAMS"), 0o644); err != nil {
		t.Fatal(err)
	}
	process("mention snapshot cut short", 1)

	// A directory that cannot take a file: the reader asks Neo4j as it would without
	// snapshots, rather than loading the copies in every process.
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg.SnapshotDir = filepath.Join(file, "snapshots")
	checkSnapshotReader(t, "unwritable directory", plain, openTestStore(t, cfg), 0, true)
}

// TestMentionSnapshotFile: a mention snapshot reads back as written; one of another generation
// is stale, and a damaged or cut one is refused.
func TestMentionSnapshotFile(t *testing.T) {
	rows := []chunkMentions{
		{id: "c1", doc: "d1", seq: 0, entities: []string{"a", "b"}},
		{id: "c2", doc: "d1", seq: 1, entities: []string{}},
		{id: "c9", doc: "d2", seq: 7, entities: []string{"b"}},
	}
	path := filepath.Join(t.TempDir(), mentionSnapshotFile)
	if err := writeMentionSnapshot(path, "1700000000000042", rows); err != nil {
		t.Fatal(err)
	}
	got, err := readMentionSnapshot(path, "1700000000000042")
	if err != nil || !reflect.DeepEqual(got, rows) {
		t.Fatalf("read back %+v, %v; wrote %+v", got, err, rows)
	}
	if g, err := mentionSnapshotGeneration(path); g != "1700000000000042" || err != nil {
		t.Errorf("mentionSnapshotGeneration = %q, %v", g, err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		gen   string
		data  []byte
		stale bool
	}{
		{"another generation", "1700000000000043", data, true},
		{"a byte flipped", "1700000000000042", flipped(data, len(data)-8), false},
		{"cut short", "1700000000000042", data[:len(data)-5], false},
		{"another kind of file", "1700000000000042", append([]byte("STRATAVS"), data[8:]...), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			refusedSnapshot(t, tc.data, tc.stale, func(path string) (bool, error) {
				rows, err := readMentionSnapshot(path, tc.gen)
				return rows != nil, err
			})
		})
	}
}

// checkSnapshotReader checks that s answers the vector searches and document links of plain,
// having loaded wantLoads copies from Neo4j, and having sent the index searches and document
// links statements only when wantSent.
func checkSnapshotReader(t *testing.T, when string, plain, s *Store, wantLoads int, wantSent bool) {
	t.Helper()
	sameSearches(t, when, plain, s)
	for _, chunks := range [][]string{{"c1"}, {"c4", "c2", "c1"}, {"c5", "missing"}} {
		want, err := plain.DocumentLinks(t.Context(), chunks, 3)
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.DocumentLinks(t.Context(), chunks, 3)
		if err != nil {
			t.Fatal(err)
		}
		if (len(got) > 0 || len(want) > 0) && !reflect.DeepEqual(got, want) {
			t.Errorf("%s: DocumentLinks(%v) = %+v, the statement's %+v", when, chunks, got, want)
		}
	}
	loads := statementCalls(s, qReadEntityVectors) + statementCalls(s, qReadChunkVectors) + statementCalls(s, qReadMentionIndex)
	sent := statementCalls(s, qSearchVector) + statementCalls(s, qDocumentLinks)
	if loads != wantLoads || (sent > 0) != wantSent {
		t.Errorf("%s: %d loads and %d searches or document links sent, want %d and sent %v", when, loads, sent, wantLoads, wantSent)
	}
}

// TestSnapshotFile: a snapshot reads back as the copy written, vectors, lengths, order and
// unindexed embeddings; one of another generation or dimension is stale, and a damaged or cut
// one is refused.
func TestSnapshotFile(t *testing.T) {
	v := &residentVectors{}
	v.reset("1700000000000042", 3, 4)
	for _, e := range []struct {
		id  string
		vec []float32
	}{{"z", []float32{1, 0, 0}}, {"y", []float32{0.25, -2, 7}}, {"zero", []float32{0, 0, 0}}, {"x", []float32{0, 1, 0}}, {"short", []float32{1}}} {
		v.add(e.id, e.vec)
	}
	v.loaded = true
	path := filepath.Join(t.TempDir(), "entity_embedding.vectors")
	if err := writeSnapshot(path, v); err != nil {
		t.Fatal(err)
	}
	if g, err := snapshotGeneration(path); g != v.gen || err != nil {
		t.Errorf("snapshotGeneration = %q, %v; want %q", g, err, v.gen)
	}
	for _, mapped := range []bool{false, true} {
		var got residentVectors
		if err := readSnapshot(path, v.gen, 3, &got, mapped); err != nil {
			t.Fatal(err)
		}
		if !got.loaded || got.gen != v.gen || got.dim != 3 || !slices.Equal(got.ids, v.ids) || !slices.Equal(got.vecs, v.vecs) ||
			!slices.Equal(got.norms, v.norms) || !maps.Equal(got.index, v.index) ||
			!maps.EqualFunc(got.unindexed, v.unindexed, slices.Equal[[]float32]) {
			t.Fatalf("mapped %v: read back ids %v vecs %v unindexed %v; wrote %v, %v, %v", mapped, got.ids, got.vecs, got.unindexed, v.ids, v.vecs, v.unindexed)
		}
		if hits := hitsString(got.search([]float32{1, 1, 0}, 10)); hits != hitsString(v.search([]float32{1, 1, 0}, 10)) {
			t.Errorf("mapped %v: search of the snapshot %s, of the copy %s", mapped, hits, hitsString(v.search([]float32{1, 1, 0}, 10)))
		}
	}

	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		gen   string
		dim   int
		data  []byte
		stale bool
	}{
		{"another generation", "1700000000000043", 3, data, true},
		{"another dimension", v.gen, 4, data, true},
		{"a vector's bit flipped", v.gen, 3, flipped(data, snapshotHeaderSize+9), false},
		{"an id's byte flipped", v.gen, 3, flipped(data, len(data)-12), false},
		{"the header's count changed", v.gen, 3, flipped(data, 16), false},
		{"cut short", v.gen, 3, data[:len(data)-3], false},
		{"empty", v.gen, 3, nil, false},
	} {
		for _, mapped := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s, mapped %v", tc.name, mapped), func(t *testing.T) {
				refusedSnapshot(t, tc.data, tc.stale, func(path string) (bool, error) {
					var got residentVectors
					err := readSnapshot(path, tc.gen, tc.dim, &got, mapped)
					return got.loaded, err
				})
			})
		}
	}
}

// refusedSnapshot writes data to a file and checks that read refuses it: an error, nothing
// loaded, and errSnapshotStale exactly when stale.
func refusedSnapshot(t *testing.T, data []byte, stale bool, read func(path string) (loaded bool, err error)) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "snapshot")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	loaded, err := read(path)
	if err == nil || loaded || errors.Is(err, errSnapshotStale) != stale {
		t.Errorf("err %v (stale %v), loaded %v; want an error, stale %v", err, errors.Is(err, errSnapshotStale), loaded, stale)
	}
}

// flipped returns a copy of data with one bit of byte i flipped.
func flipped(data []byte, i int) []byte {
	out := slices.Clone(data)
	out[i] ^= 1
	return out
}

// sameHits: the same ids in the same order, scores equal up to Neo4j's float32 arithmetic.
func sameHits(a, b []graph.Hit) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].ID != b[i].ID || math.Abs(a[i].Score-b[i].Score) > 1e-6 {
			return false
		}
	}
	return true
}

// TestResidentVectorsSearchOrder: best first, ties by id, k bounds the hits, and a query of
// another dimension or of length zero has none.
func TestResidentVectorsSearchOrder(t *testing.T) {
	v := &residentVectors{loaded: true, dim: 2}
	for _, e := range []struct {
		id  string
		vec []float32
	}{{"z", []float32{1, 0}}, {"y", []float32{2, 0}}, {"x", []float32{0, 1}}, {"w", []float32{-1, 0}}} {
		v.ids, v.vecs, v.norms = append(v.ids, e.id), append(v.vecs, e.vec...), append(v.norms, length(e.vec))
	}
	for _, tc := range []struct {
		q    []float32
		k    int
		want string
	}{
		{[]float32{1, 0}, 10, "y:1.000 z:1.000 x:0.500 w:0.000"},
		{[]float32{3, 0}, 2, "y:1.000 z:1.000"},
		{[]float32{0, -1}, 1, "w:0.500"},
		{[]float32{0, 0}, 3, ""},
		{[]float32{1, 0, 0}, 3, ""},
	} {
		if got := hitsString(v.search(tc.q, tc.k)); got != tc.want {
			t.Errorf("search(%v, %d) = %q, want %q", tc.q, tc.k, got, tc.want)
		}
	}
}
