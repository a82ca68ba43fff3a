package cypher

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stratarag/strata/internal/graph"
)

// schemaServer answers the vector-index statements like a server would: created indexes are
// listed with their dimension. missing answers the missing_* statements.
type schemaServer struct {
	dims    map[string]int64
	missing map[string][]string
	rows    map[string][]map[string]any
}

func (s *schemaServer) answer(name string, params map[string]any) ([]map[string]any, error) {
	switch name {
	case qSchemaVectorChunk, qSchemaVectorEntity, qSchemaVectorCommunity:
		idx := strings.TrimPrefix(name, "schema_vector_") + "_embedding"
		if _, ok := s.dims[idx]; !ok {
			s.dims[idx] = params["dimensions"].(int64)
		}
		return nil, nil
	case qSchemaVectorIndexes:
		var rows []map[string]any
		for name, d := range s.dims {
			rows = append(rows, map[string]any{"name": name, "dimensions": d})
		}
		return rows, nil
	case qMissingDocuments, qMissingChunks, qMissingEntities, qMissingCommunities:
		var rows []map[string]any
		for _, id := range s.missing[name] {
			rows = append(rows, map[string]any{"id": id})
		}
		return rows, nil
	}
	return s.rows[name], nil
}

func newSchemaServer() *schemaServer {
	return &schemaServer{dims: map[string]int64{}, missing: map[string][]string{}, rows: map[string][]map[string]any{}}
}

func testBatch() graph.Batch {
	at := time.Date(2024, 5, 6, 9, 8, 9, 0, time.FixedZone("CEST", 2*3600))
	return graph.Batch{
		Documents: []graph.Document{{ID: "doc-1", Title: "Alpha", Metadata: "{}", IngestedAt: at}},
		Chunks: []graph.Chunk{
			{ID: "c-1", DocumentID: "doc-1", Seq: 0, Text: "Alice met Bob.", Tokens: 4, Embedding: []float32{1, 0, 0}},
			{ID: "c-2", DocumentID: "doc-1", Seq: 1, Text: "No vector.", Tokens: 2},
		},
		Entities: []graph.Entity{
			{ID: "ALICE", Name: "Alice", Type: "person", Embedding: []float32{0, 1}, ComponentID: 7, Degree: 3},
			{ID: "PEOPLE", Name: "People", Layer: 1},
		},
		Relations:    []graph.Relation{{Source: "BOB", Target: "ALICE", Description: "met", Weight: 2}},
		Mentions:     []graph.Mention{{ChunkID: "c-1", EntityID: "ALICE"}},
		SummaryLinks: []graph.SummaryLink{{Member: "ALICE", Summary: "PEOPLE", Weight: 1}},
		Meta:         map[string]string{"b": "2", "a": "1"},
	}
}

// The batch that records the embedding model creates every vector index at once, so that an
// ingest changes the schema (and so empties the server's plan cache) once, before its writes.
func TestApplyCreatesRecordedModelIndexes(t *testing.T) {
	s, f := newFakeStore(t, Config{}, "")
	srv := newSchemaServer()
	f.answer = srv.answer
	b := graph.Batch{
		Documents: []graph.Document{{ID: "doc-1", Metadata: "{}"}},
		Chunks:    []graph.Chunk{{ID: "c-1", DocumentID: "doc-1", Text: "x", Embedding: []float32{1, 0, 0}}},
		Meta:      map[string]string{graph.MetaEmbeddingDims: "3"},
	}
	if err := s.Apply(t.Context(), b); err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{"chunk_embedding": 3, "entity_embedding": 3, "community_embedding": 3}
	if !reflect.DeepEqual(srv.dims, want) {
		t.Errorf("vector indexes %v, want %v", srv.dims, want)
	}
	if n := len(f.only(qSchemaAwait)); n != 1 {
		t.Errorf("%d awaits, want the three indexes awaited together", n)
	}

	b.Meta[graph.MetaEmbeddingDims] = "4" // another model: the chunk index refuses it
	b.Chunks[0].Embedding = []float32{1, 0, 0, 0}
	if err := s.Apply(t.Context(), b); err == nil || !strings.Contains(err.Error(), "3-dimensional") {
		t.Errorf("Apply with 4-dimensional embeddings into 3-dimensional indexes: %v, want a dimension error", err)
	}
}

func TestApplyStatementsAndParams(t *testing.T) {
	s, f := newFakeStore(t, Config{}, "")
	srv := newSchemaServer()
	f.answer = srv.answer
	if err := s.Apply(t.Context(), testBatch()); err != nil {
		t.Fatal(err)
	}
	sequence(t, f,
		// vector indexes first, each statement a transaction of its own: list, create both,
		// await them together, re-list
		qSchemaVectorIndexes, qSchemaVectorChunk, qSchemaVectorEntity, qSchemaAwait, qSchemaVectorIndexes,
		// then one write transaction: references the batch does not hold, the generations
		// (one statement), writes
		qMissingEntities, qBumpGeneration,
		qWriteDocuments, qWriteChunks, qWriteNextUnlink, qWriteNextLink,
		qWriteEntities, qWriteRelations, qWriteMentions, qWriteSummaryLinks, qWriteMeta,
	)
	if srv.dims["chunk_embedding"] != 3 || srv.dims["entity_embedding"] != 2 {
		t.Errorf("vector index dimensions = %v, want chunk 3 and entity 2", srv.dims)
	}
	txn := f.only(qMissingEntities)[0].txn
	for _, c := range f.calls {
		if (strings.HasPrefix(c.name, "write_") || strings.HasPrefix(c.name, "missing_")) && c.txn != txn {
			t.Errorf("%s ran in transaction %d, want every data statement in one transaction (%d)", c.name, c.txn, txn)
		}
		wantWrite := !strings.HasPrefix(c.name, "schema_vector_indexes") && c.name != qSchemaAwait
		if c.write != wantWrite {
			t.Errorf("%s ran in a write transaction: %v, want %v", c.name, c.write, wantWrite)
		}
	}

	// References that the batch does not hold itself are checked against the store.
	if got := f.only(qMissingEntities)[0].params["ids"]; !reflect.DeepEqual(got, []string{"BOB"}) {
		t.Errorf("missing_entities ids = %v, want [BOB]", got)
	}

	chunks := rowsParam(t, f.only(qWriteChunks)[0])
	if got := chunks[0]["embedding"]; !reflect.DeepEqual(got, []float64{1, 0, 0}) {
		t.Errorf("chunk embedding param = %#v, want []float64{1, 0, 0}", got)
	}
	if got := chunks[1]["embedding"]; got != nil {
		t.Errorf("chunk without embedding sends %#v, want nil (removes the property)", got)
	}
	if got := chunks[0]["seq"]; got != int64(0) {
		t.Errorf("seq param = %#v, want int64", got)
	}
	ents := rowsParam(t, f.only(qWriteEntities)[0])
	for _, key := range []string{"componentId", "degree"} {
		if _, ok := ents[0][key]; ok {
			t.Errorf("entity row carries %s; it belongs to ComputeComponents", key)
		}
	}
	if ents[1]["layer"] != int64(1) {
		t.Errorf("layer param = %#v, want int64(1)", ents[1]["layer"])
	}
	rel := rowsParam(t, f.only(qWriteRelations)[0])[0]
	if rel["source"] != "ALICE" || rel["target"] != "BOB" {
		t.Errorf("relation row %v, want it stored from ALICE to BOB", rel)
	}
	if got := rel["chunkIds"]; !reflect.DeepEqual(got, []string{}) {
		t.Errorf("chunkIds param = %#v, want an empty list, never null", got)
	}
	meta := rowsParam(t, f.only(qWriteMeta)[0])
	if meta[0]["key"] != "a" || meta[1]["key"] != "b" {
		t.Errorf("meta rows %v, want sorted by key", meta)
	}
	docs := rowsParam(t, f.only(qWriteDocuments)[0])
	if at, ok := docs[0]["ingestedAt"].(time.Time); !ok || at.Location() != time.UTC {
		t.Errorf("ingestedAt param is %#v, want a time.Time in UTC (a Neo4j DATETIME)", docs[0]["ingestedAt"])
	}
	if got := f.only(qWriteNextLink)[0].params["documentIds"]; !reflect.DeepEqual(got, []string{"doc-1"}) {
		t.Errorf("NEXT rebuilt for %v, want [doc-1]", got)
	}

	// A second batch with embeddings of the same dimensions creates no index.
	f.reset()
	if err := s.Apply(t.Context(), graph.Batch{Chunks: testBatch().Chunks[:1], Documents: testBatch().Documents}); err != nil {
		t.Fatal(err)
	}
	if n := len(f.only(qSchemaVectorChunk)); n != 0 {
		t.Errorf("second batch created the chunk index again (%d times)", n)
	}
}

func TestApplyBatchSize(t *testing.T) {
	s, f := newFakeStore(t, Config{BatchSize: 2}, "")
	f.answer = newSchemaServer().answer
	var b graph.Batch
	for _, id := range []string{"A", "B", "C", "D", "E"} {
		b.Entities = append(b.Entities, graph.Entity{ID: id, Name: id})
	}
	if err := s.Apply(t.Context(), b); err != nil {
		t.Fatal(err)
	}
	var sizes []int
	for _, c := range f.only(qWriteEntities) {
		sizes = append(sizes, len(rowsParam(t, c)))
	}
	if !slices.Equal(sizes, []int{2, 2, 1}) {
		t.Errorf("write_entities batches = %v, want [2 2 1]", sizes)
	}
}

func TestApplyRejects(t *testing.T) {
	for _, tc := range []struct {
		name    string
		batch   graph.Batch
		dims    map[string]int64
		missing map[string][]string
		want    string
	}{
		{
			name:  "embedding of another dimension than the index",
			batch: graph.Batch{Entities: []graph.Entity{{ID: "A", Embedding: []float32{1, 2, 3, 4}}}},
			dims:  map[string]int64{"entity_embedding": 3},
			want:  "entity_embedding holds 3-dimensional embeddings, got 4-dimensional",
		},
		{
			name: "mixed dimensions in one batch",
			batch: graph.Batch{Entities: []graph.Entity{
				{ID: "A", Embedding: []float32{1, 2}}, {ID: "B", Embedding: []float32{1, 2, 3}},
			}},
			want: "entity B has a 3-dimensional embedding but entity A a 2-dimensional one",
		},
		{
			name:    "unknown community",
			batch:   graph.Batch{Communities: []graph.Community{{ID: "0-99", Title: "x"}}},
			missing: map[string][]string{qMissingCommunities: {"0-99"}},
			want:    `communities that do not exist (communities are made by ComputeCommunities): "0-99"`,
		},
		{
			name:    "relation to an unknown entity",
			batch:   graph.Batch{Relations: []graph.Relation{{Source: "A", Target: "ZED"}}},
			missing: map[string][]string{qMissingEntities: {"ZED"}},
			want:    `entities that do not exist: "ZED"`,
		},
		{
			name:    "chunk of an unknown document",
			batch:   graph.Batch{Chunks: []graph.Chunk{{ID: "c", DocumentID: "nope"}}},
			missing: map[string][]string{qMissingDocuments: {"nope"}},
			want:    `documents that do not exist: "nope"`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, f := newFakeStore(t, Config{}, "")
			srv := newSchemaServer()
			for k, v := range tc.dims {
				srv.dims[k] = v
			}
			srv.missing = tc.missing
			f.answer = srv.answer
			err := s.Apply(t.Context(), tc.batch)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Apply = %v, want an error containing %q", err, tc.want)
			}
			for _, c := range f.calls {
				if strings.HasPrefix(c.name, "write_") {
					t.Errorf("Apply ran %s before failing", c.name)
				}
			}
		})
	}
}

func TestApplyNothing(t *testing.T) {
	s, f := newFakeStore(t, Config{}, "2.13.0")
	if err := s.Apply(t.Context(), graph.Batch{}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := s.Apply(ctx, testBatch()); err == nil {
		t.Error("Apply with a canceled context succeeded")
	}
	sequence(t, f)
}

// TestApplyBumpsGeneration: a batch moves on, in one statement of its own transaction, the
// counters of what it changes: the entity graph's (which makes the GDS projection of the
// previous state stale), the chunks', the mentions', the communities' and the documents' (which
// make a resident reader's copies stale).
func TestApplyBumpsGeneration(t *testing.T) {
	const g, c, m, r, d = metaEntityGraphGeneration, metaChunkGeneration, metaMentionGeneration, metaCommunityGeneration,
		metaDocumentGeneration
	for _, tc := range []struct {
		name  string
		batch graph.Batch
		keys  []string
	}{
		{"entities change the graph", graph.Batch{Entities: []graph.Entity{{ID: "A"}}}, []string{g}},
		{"summary links do", graph.Batch{SummaryLinks: []graph.SummaryLink{{Member: "A", Summary: "B"}}}, []string{g}},
		{"clearing summaries does", graph.Batch{ClearSummaries: true}, []string{g}},
		{"deleting entities deletes their mentions", graph.Batch{DeleteEntities: []string{"A"}}, []string{g, m}},
		{"chunks", graph.Batch{Documents: []graph.Document{{ID: "d"}}, Chunks: []graph.Chunk{{ID: "c", DocumentID: "d"}}}, []string{c, m, d}},
		{"deleting documents", graph.Batch{DeleteDocuments: []string{"d"}}, []string{c, m, d}},
		{"mentions", graph.Batch{Entities: []graph.Entity{{ID: "A"}}, Mentions: []graph.Mention{{ChunkID: "c", EntityID: "A"}}}, []string{g, m}},
		{"deleting mentions", graph.Batch{DeleteMentions: []graph.MentionKey{{ChunkID: "c", EntityID: "A"}}}, []string{m}},
		{"reports", graph.Batch{Communities: []graph.Community{{ID: "0/1", Title: "T"}}}, []string{r}},
		{"meta does not", graph.Batch{Meta: map[string]string{"k": "v"}}, nil},
		{"documents", graph.Batch{Documents: []graph.Document{{ID: "d"}}}, []string{d}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, f := newFakeStore(t, Config{}, "2.13.0")
			f.answer = newSchemaServer().answer
			if err := s.Apply(t.Context(), tc.batch); err != nil {
				t.Fatal(err)
			}
			bumps := f.only(qBumpGeneration)
			if (len(bumps) == 1) != (tc.keys != nil) || len(bumps) > 1 {
				t.Fatalf("bump_generation ran %d times, want keys %v", len(bumps), tc.keys)
			}
			if len(bumps) == 1 {
				if got := bumps[0].params["keys"]; !reflect.DeepEqual(got, tc.keys) {
					t.Errorf("bump_generation keys = %v, want %v", got, tc.keys)
				}
				if bumps[0].txn != f.calls[len(f.calls)-1].txn {
					t.Errorf("bump %v ran outside the batch's transaction", bumps[0])
				}
			}
			if len(f.only(qGDSDrop)) != 0 {
				t.Error("Apply dropped a projection; staleness is the generation's job")
			}
		})
	}
}

func TestApplyRelinksDocumentsAChunkLeft(t *testing.T) {
	s, f := newFakeStore(t, Config{}, "")
	srv := newSchemaServer()
	srv.rows[qWriteChunks] = []map[string]any{{"previousDocumentIds": []any{"old-doc"}}}
	f.answer = srv.answer
	b := graph.Batch{
		Documents: []graph.Document{{ID: "new-doc"}},
		Chunks:    []graph.Chunk{{ID: "c", DocumentID: "new-doc"}},
	}
	if err := s.Apply(t.Context(), b); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{qWriteNextUnlink, qWriteNextLink} {
		if got := f.only(name)[0].params["documentIds"]; !reflect.DeepEqual(got, []string{"new-doc", "old-doc"}) {
			t.Errorf("%s for %v, want [new-doc old-doc]", name, got)
		}
	}
}

// TestApplyDeleteChunks: deleted chunks go first, in the batch's transaction, and the documents
// that lost a chunk get their NEXT chains rebuilt even when the batch writes no chunk.
func TestApplyDeleteChunks(t *testing.T) {
	s, f := newFakeStore(t, Config{}, "")
	f.answer = answers(map[string][]map[string]any{qDeleteChunks: {{"documentIds": []any{"doc-1"}}}})
	if err := s.Apply(t.Context(), graph.Batch{DeleteChunks: []string{"c-2", "c-9", "c-2"}}); err != nil {
		t.Fatal(err)
	}
	sequence(t, f, qDeleteChunks, qBumpGeneration, qWriteNextUnlink, qWriteNextLink)
	if got := f.only(qBumpGeneration)[0].params["keys"]; !reflect.DeepEqual(got, []string{metaChunkGeneration, metaMentionGeneration}) {
		t.Errorf("bump_generation keys = %v, want the chunks' and the mentions'", got)
	}
	if got := f.only(qDeleteChunks)[0].params["ids"]; !reflect.DeepEqual(got, []string{"c-2", "c-9"}) {
		t.Errorf("delete_chunks ids = %v, want each id once", got)
	}
	if got := f.only(qWriteNextLink)[0].params["documentIds"]; !reflect.DeepEqual(got, []string{"doc-1"}) {
		t.Errorf("NEXT relinked for %v, want [doc-1]", got)
	}
}

// TestApplyClearSummaries: clearing runs inside the batch's transaction before the upserts.
func TestApplyClearSummaries(t *testing.T) {
	s, f := newFakeStore(t, Config{}, "")
	srv := newSchemaServer()
	f.answer = srv.answer
	err := s.Apply(t.Context(), graph.Batch{
		ClearSummaries: true,
		Entities:       []graph.Entity{{ID: "GROUP", Name: "Group", Layer: 1}},
	})
	if err != nil {
		t.Fatal(err)
	}
	sequence(t, f, qClearSummaries, qBumpGeneration, qWriteEntities)
	if f.only(qClearSummaries)[0].txn != f.only(qWriteEntities)[0].txn {
		t.Error("clearing and writing ran in different transactions")
	}
}
