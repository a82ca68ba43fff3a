package storetest

import (
	"testing"

	"github.com/stratarag/strata/internal/graph"
)

func pageTests() []test {
	return []test{
		{"Chunks/Pages", testChunkPages},
	}
}

// testChunkPages: the pages of a chunk of a paged document come back from every reader of
// chunks (Chunks, DocumentChunks, ExpandLocal); a chunk of a document without pages has none;
// an upsert replaces the pages, also with none.
func testChunkPages(t *testing.T, s graph.Store) {
	docs := []graph.Document{{ID: "report.pdf", Title: "Report", Metadata: "{}"}, {ID: "notes.txt", Title: "Notes", Metadata: "{}"}}
	chunks := []graph.Chunk{
		{ID: "p-0", DocumentID: "report.pdf", Seq: 0, Text: "Page one.", Tokens: 3, FirstPage: 1, LastPage: 1},
		{ID: "p-1", DocumentID: "report.pdf", Seq: 1, Text: "Pages two to four.", Tokens: 5, FirstPage: 2, LastPage: 4},
		{ID: "n-0", DocumentID: "notes.txt", Seq: 0, Text: "No pages.", Tokens: 3},
	}
	apply(t, s, graph.Batch{
		Documents: docs,
		Chunks:    chunks,
		Entities:  []graph.Entity{{ID: "X", Name: "X", Type: "thing", Description: "x"}},
		Mentions:  []graph.Mention{{ChunkID: "p-1", EntityID: "X"}, {ChunkID: "n-0", EntityID: "X"}},
	})

	check(t, "Chunks", must[[]graph.Chunk](t, "Chunks")(s.Chunks(ctx(t), []string{"n-0", "p-1", "p-0"})),
		[]graph.Chunk{chunks[2], chunks[1], chunks[0]})
	check(t, "DocumentChunks(report.pdf)", must[[]graph.Chunk](t, "DocumentChunks")(s.DocumentChunks(ctx(t), "report.pdf")), chunks[:2])
	check(t, "DocumentChunks(notes.txt)", must[[]graph.Chunk](t, "DocumentChunks")(s.DocumentChunks(ctx(t), "notes.txt")), chunks[2:])
	lc, err := s.ExpandLocal(ctx(t), []string{"X"}, graph.LocalOptions{TopChunks: 10})
	if err != nil {
		t.Fatalf("ExpandLocal: %v", err)
	}
	check(t, "ExpandLocal chunks", lc.Chunks, []graph.ScoredChunk{{Chunk: chunks[2], Score: 1}, {Chunk: chunks[1], Score: 1}})
	if got := chunks[1].Pages(); len(got) != 3 || got[0] != 2 || got[2] != 4 {
		t.Errorf("Pages() of pages 2-4 = %v", got)
	}
	if got := chunks[2].Pages(); got != nil {
		t.Errorf("Pages() of a chunk without pages = %v, want nil", got)
	}

	// The document was re-read without pages (another format), then with the pages moved.
	noPages, moved := chunks[0], chunks[1]
	noPages.FirstPage, noPages.LastPage = 0, 0
	moved.FirstPage, moved.LastPage = 3, 3
	apply(t, s, graph.Batch{Chunks: []graph.Chunk{noPages, moved}})
	check(t, "Chunks after replacing pages", must[[]graph.Chunk](t, "Chunks")(s.Chunks(ctx(t), []string{"p-0", "p-1"})),
		[]graph.Chunk{noPages, moved})
}
