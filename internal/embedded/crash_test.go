package embedded

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stratarag/strata/internal/graph"
)

// The crash test runs a writer in a child process (this test binary again, selecting
// TestCrashChild through crashChildEnv), kills it with SIGKILL while it applies batches, and checks
// that the store holds exactly the batches committed before the kill.

const (
	crashChildEnv   = "STRATA_EMBEDDED_CRASH_DIR"
	crashBatches    = 30
	crashChunks     = 150 // per batch
	crashEntities   = 15  // per batch
	crashDimensions = 64
)

// crashBatch is batch i of the crash test: one document with its chunks, entities mentioned by the
// chunks, relations between them, and the batch number in meta.
func crashBatch(i int) graph.Batch {
	doc := fmt.Sprintf("doc-%03d", i)
	b := graph.Batch{
		Documents: []graph.Document{{ID: doc, Title: "Document " + doc, Metadata: "{}", IngestedAt: time.Unix(int64(i), 0)}},
		Meta:      map[string]string{"last_batch": strconv.Itoa(i)},
	}
	words := strings.Repeat("lorem ipsum dolor sit amet consectetur adipiscing elit ", 40)
	for j := range crashChunks {
		vec := make([]float32, crashDimensions)
		for d := range vec {
			vec[d] = float32((i*31+j*7+d)%13) - 6
		}
		id := fmt.Sprintf("%s-c%02d", doc, j)
		b.Chunks = append(b.Chunks, graph.Chunk{
			ID: id, DocumentID: doc, Seq: j, Tokens: 400, Embedding: vec,
			Text: fmt.Sprintf("batchword%d chunk %d of %s. %s", i, j, doc, words),
		})
		b.Mentions = append(b.Mentions, graph.Mention{ChunkID: id, EntityID: fmt.Sprintf("E-%03d-%02d", i, j%crashEntities)})
	}
	for j := range crashEntities {
		id := fmt.Sprintf("E-%03d-%02d", i, j)
		b.Entities = append(b.Entities, graph.Entity{ID: id, Name: id, Type: "thing", Description: "entity of batch " + doc})
		if j > 0 {
			b.Relations = append(b.Relations, graph.Relation{
				Source: fmt.Sprintf("E-%03d-%02d", i, j-1), Target: id, Weight: 1, Description: "next",
			})
		}
	}
	return b
}

// TestCrashChild is the writer the crash test kills; it does nothing in a normal test run.
func TestCrashChild(t *testing.T) {
	dir := os.Getenv(crashChildEnv)
	if dir == "" {
		t.Skip("only runs as the child of TestCrashRecovery")
	}
	s, err := Open(t.Context(), dir, Options{})
	if err != nil {
		t.Fatalf("child: Open: %v", err)
	}
	for i := range crashBatches {
		if err := s.Apply(t.Context(), crashBatch(i)); err != nil {
			t.Fatalf("child: Apply %d: %v", i, err)
		}
		fmt.Printf("applied %d\n", i)
	}
	s.Close()
}

func TestCrashRecovery(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test skipped in -short mode")
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+dir)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Kill the child as soon as it reports its third commit: it goes on to the next Apply
	// without waiting, so the kill lands wherever it is then, most likely inside a write.
	lines := bufio.NewScanner(stdout)
	applied := 0
	for applied < 3 && lines.Scan() {
		if strings.HasPrefix(lines.Text(), "applied ") {
			applied++
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatalf("kill child: %v", err)
	}
	for lines.Scan() { // drain, so Wait does not block on the pipe
	}
	cmd.Wait()
	if applied < 3 {
		t.Fatalf("child stopped after %d batches", applied)
	}

	// A reader comes first: it must cope with the WAL the killed writer left behind.
	r, err := Open(t.Context(), dir, Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("read-only open after the kill: %v", err)
	}
	read := checkWholeBatches(t, r)
	r.Close()

	s, err := Open(t.Context(), dir, Options{})
	if err != nil {
		t.Fatalf("reopen after the kill: %v", err)
	}
	defer s.Close()
	done := checkWholeBatches(t, s)
	if read != done {
		t.Errorf("the reader saw %d batches, the writer %d", read, done)
	}
	t.Logf("child was killed after %d committed batches", done)
	if done < 3 {
		t.Errorf("store holds %d batches, the child reported 3 commits", done)
	}

	for i := done; i < crashBatches; i++ {
		if err := s.Apply(t.Context(), crashBatch(i)); err != nil {
			t.Fatalf("Apply %d after the kill: %v", i, err)
		}
	}
	if got := checkWholeBatches(t, s); got != crashBatches {
		t.Errorf("after applying the rest the store holds %d batches, want %d", got, crashBatches)
	}
}

// checkWholeBatches checks that the store holds batches 0..n-1 completely and nothing of any other
// batch, that every chunk's document exists and that the indexes agree with the tables. It
// returns n.
func checkWholeBatches(t *testing.T, s *Store) int {
	t.Helper()
	ctx := t.Context()
	var ids []string
	for i := range crashBatches {
		ids = append(ids, fmt.Sprintf("doc-%03d", i))
	}
	docs, err := s.Documents(ctx, ids)
	if err != nil {
		t.Fatalf("Documents: %v", err)
	}
	n := len(docs)
	for i, d := range docs {
		if d.ID != ids[i] {
			t.Fatalf("stored documents %v are not a prefix of the batches", docs)
		}
	}
	st, err := s.Stats(ctx)
	if err != nil {
		t.Fatalf("Stats: %v", err)
	}
	want := map[string]int64{
		"Document": int64(n), "Chunk": int64(n * crashChunks), "Entity": int64(n * crashEntities),
		"PART_OF": int64(n * crashChunks), "NEXT": int64(n * (crashChunks - 1)),
		"HAS_ENTITY": int64(n * crashChunks), "RELATED": int64(n * (crashEntities - 1)),
	}
	for k, v := range want {
		got := st.Nodes[k] + st.Relationships[k]
		if got != v {
			t.Errorf("%d whole batches: %s = %d, want %d", n, k, got, v)
		}
	}
	if n > 0 {
		last, ok, err := s.Meta(ctx, "last_batch")
		if err != nil || !ok || last != strconv.Itoa(n-1) {
			t.Errorf("Meta(last_batch) = %q, %v, %v; want %d", last, ok, err, n-1)
		}
		hits, err := s.TextSearch(ctx, graph.ChunkText, fmt.Sprintf("batchword%d", n-1), 2*crashChunks)
		if err != nil || len(hits) != crashChunks {
			t.Errorf("TextSearch for the last batch's word: %d hits, %v; want %d", len(hits), err, crashChunks)
		}
		if _, err := s.VectorSearch(ctx, graph.ChunkEmbedding, make([]float32, crashDimensions-1), 1); err == nil {
			t.Error("VectorSearch with a wrong dimension succeeded")
		}
	}
	for _, q := range []string{
		`PRAGMA integrity_check`,
		`INSERT INTO chunk_text (chunk_text, rank) VALUES ('integrity-check', 1)`,
		`INSERT INTO entity_text (entity_text, rank) VALUES ('integrity-check', 1)`,
	} {
		if strings.HasPrefix(q, "PRAGMA") {
			var res string
			if err := s.db.QueryRowContext(ctx, q).Scan(&res); err != nil || res != "ok" {
				t.Errorf("%s = %q, %v", q, res, err)
			}
		} else if s.readOnly {
			continue // the FTS5 integrity check is written as an INSERT
		} else if _, err := s.db.ExecContext(ctx, q); err != nil {
			t.Errorf("%s: %v", q, err)
		}
	}
	return n
}
