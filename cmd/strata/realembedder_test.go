package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestRealEmbedderRecall ingests testdata with offline extraction twice, with the real embedding
// model and with the hashing embedder, and checks that hi mode's recall@5 with the model is at
// least the hashing embedder's on testdata's questions.
func TestRealEmbedderRecall(t *testing.T) {
	realEmbedder(t)
	questions := filepath.Join("..", "..", "testdata", "questions.jsonl")
	recall := map[string]float64{}
	for _, emb := range []struct{ name, model string }{
		{"hash", "offline"},
		{"model", os.Getenv("STRATA_TEST_EMBEDDING_MODEL")},
	} {
		dir := t.TempDir()
		if code, out, errOut := runCLI(t, "ingest", "--data-dir", dir, "--embedding-model", emb.model, corpusDir); code != 0 {
			t.Fatalf("%s ingest exit %d\n%s\n%s", emb.name, code, out, errOut)
		}
		code, out, errOut := runCLI(t, "eval", "--data-dir", dir, "--embedding-model", emb.model, "--questions", questions, "--mode", "hi", "--json")
		if code != 0 {
			t.Fatalf("%s eval exit %d\n%s", emb.name, code, errOut)
		}
		var rep struct{ Recall map[string]float64 }
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		recall[emb.name] = rep.Recall["recall@5"]
		t.Logf("%s: hi %s", emb.name, fmt.Sprint(rep.Recall))
	}
	if recall["model"] < recall["hash"] {
		t.Errorf("hi recall@5 with the embedding model %.3f, below the hashing embedder's %.3f", recall["model"], recall["hash"])
	}
}
