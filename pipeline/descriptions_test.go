package pipeline_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stratarag/strata/internal/graph"
)

// partsSummarizer merges descriptions into a text that says how many parts it was given and
// which was last, so that a test can tell a merge of all of an entity's parts from a merge of
// some; it counts its calls per name and fails while fail is set.
type partsSummarizer struct {
	mu    sync.Mutex
	calls map[string]int
	fail  bool
}

func (s *partsSummarizer) Summarize(ctx context.Context, name string, parts []string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail {
		return "", errors.New("model unavailable")
	}
	if s.calls == nil {
		s.calls = map[string]int{}
	}
	s.calls[name]++
	return mergedDescription(name, parts), nil
}

func mergedDescription(name string, parts []string) string {
	return fmt.Sprintf("%s, from %d parts, the last: %s", name, len(parts), parts[len(parts)-1])
}

// recurringCorpus writes documents in which one name recurs in every sentence, each sentence
// distinct, so that its description passes the budget within the first document and grows
// with every batch after.
func recurringCorpus(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	towns := []string{"Ostvik", "Marrow", "Pellan", "Quarn", "Ruslo", "Sedge", "Tarrow", "Umber"}
	for d := range 3 {
		var b strings.Builder
		for i := range 60 {
			fmt.Fprintf(&b, "Aldo Varne reached %s on the %dth day of the %d journey and wrote about the harbour there. ",
				towns[(d+i)%len(towns)], i+1, d+1)
			if i%6 == 5 {
				b.WriteString("\n\n")
			}
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("journey-%d.txt", d)), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestDeferredDescriptionsMergeOncePerRun: a name every batch of a run adds evidence to is
// merged by the model once, after the last batch, from all its parts; a run killed before
// that merge leaves the list in the store and the next run merges it, though no document
// changed.
func TestDeferredDescriptionsMergeOncePerRun(t *testing.T) {
	ctx := context.Background()
	dir := recurringCorpus(t)
	store := openStore(t, t.TempDir())
	sum := &partsSummarizer{fail: true}
	in := newIngester(t, store, nil)
	in.Summarizer = sum
	in.Options.Chunk.Size, in.Options.Chunk.Overlap = 120, 0
	in.Options.ChunkBatch = 2
	if _, err := in.Run(ctx, []string{dir}); err == nil || !strings.Contains(err.Error(), "model unavailable") {
		t.Fatalf("run with a failing model: err = %v, want the model's error", err)
	}
	pending, _, err := store.Meta(ctx, graph.MetaDescriptionsDeferred)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(pending, "ALDO VARNE") {
		t.Fatalf("deferred after the failed merge = %q, want ALDO VARNE listed", pending)
	}

	sum.fail = false
	rep, err := in.Run(ctx, []string{dir})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Unchanged != 3 {
		t.Errorf("second run: %d documents unchanged, want 3", rep.Unchanged)
	}
	if n := sum.calls["Aldo Varne"]; n != 1 {
		t.Errorf("Aldo Varne merged %d times over %d chunks, want once", n, rep.Chunks)
	}
	es, err := store.Entities(ctx, []string{"ALDO VARNE"})
	if err != nil || len(es) != 1 {
		t.Fatalf("entity: %v, %v", es, err)
	}
	evidence, err := store.EntityEvidence(ctx, []string{"ALDO VARNE"})
	if err != nil {
		t.Fatal(err)
	}
	graph.SortMentions(evidence)
	var parts []string
	seen := map[string]bool{}
	for _, m := range evidence {
		for _, p := range strings.Split(m.Description, "\n") {
			if p = strings.TrimSpace(p); p != "" && !seen[p] && !m.Subject {
				seen[p] = true
				parts = append(parts, p)
			}
		}
	}
	if want := mergedDescription("Aldo Varne", parts); es[0].Description != want {
		t.Errorf("description = %q\nwant the merge of all %d parts: %q", es[0].Description, len(parts), want)
	}
	if pending, _, _ := store.Meta(ctx, graph.MetaDescriptionsDeferred); pending != "" {
		t.Errorf("deferred after the merge = %q, want none", pending)
	}
}
