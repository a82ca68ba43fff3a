package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stratarag/strata/internal/llm/fakeopenai"
	"github.com/stratarag/strata/internal/llmtask/summarize"
	"github.com/stratarag/strata/internal/neo4jtest"
)

// TestNeo4jDeferredDescriptions: with a model, the descriptions past the budget are merged at
// the end of the documents stage (pipeline/descriptions.go) on Neo4j as on the embedded store:
// the same merge calls, and the same merged description in a query's context.
func TestNeo4jDeferredDescriptions(t *testing.T) {
	srv := neo4jtest.Require(t)
	srv.Reset(t)
	fake := fakeAPI(t, fakeopenai.Options{Seed: 1})
	corpus := t.TempDir()
	towns := []string{"Ostvik", "Marrow", "Pellan", "Quarn", "Ruslo", "Sedge", "Tarrow", "Umber"}
	for d := range 3 {
		var b strings.Builder
		for i := range 120 {
			fmt.Fprintf(&b, "Aldo Varne reached %s on day %d of journey %d and wrote about its harbour. ", towns[(d+i)%len(towns)], i+1, d+1)
			if i%6 == 5 {
				b.WriteString("\n\n")
			}
		}
		if err := os.WriteFile(filepath.Join(corpus, fmt.Sprintf("journey-%d.txt", d)), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	type ingestStages struct {
		LLM struct {
			Stages map[string]struct {
				LLMCalls  int `json:"llm_calls"`
				CacheHits int `json:"cache_hits"`
			} `json:"stages"`
		} `json:"llm"`
	}
	type entities struct {
		Context struct {
			Entities []struct{ ID, Description string }
		}
	}
	description := func(what, out string) string {
		for _, e := range decodeJSON[entities](t, what, out).Context.Entities {
			if e.ID == "ALDO VARNE" {
				return e.Description
			}
		}
		t.Fatalf("%s: no ALDO VARNE in the context\n%s", what, out)
		return ""
	}
	question := "Where did Aldo Varne write about the harbour?"

	dir := t.TempDir()
	code, out, errOut := runCLI(t, "ingest", "--data-dir", dir, "--chunk-size", "200", "--chunk-overlap", "0", "--json", corpus)
	if code != 0 {
		t.Fatalf("ingest into the embedded store: exit %d\n%s\n%s", code, out, errOut)
	}
	emb := decodeJSON[ingestStages](t, "embedded ingest", out).LLM.Stages["summarize"]
	code, out, errOut = runCLI(t, "query", "--data-dir", dir, "--mode", "local", "--context-only", "--json", question)
	if code != 0 {
		t.Fatalf("query the embedded store: exit %d\n%s", code, errOut)
	}
	want := description("embedded query", out)

	merges := fake.Counts().ByTask[summarize.Task]
	srv.Setenv(t)
	code, out, errOut = runCLI(t, "ingest", "--data-dir", t.TempDir(), "--chunk-size", "200", "--chunk-overlap", "0", "--json", corpus)
	if code != 0 {
		t.Fatalf("ingest into Neo4j: exit %d\n%s\n%s", code, out, errOut)
	}
	neo := decodeJSON[ingestStages](t, "Neo4j ingest", out).LLM.Stages["summarize"]
	// Every batch adds to the name: merged at each one, the calls would number the batches.
	if emb.LLMCalls == 0 || emb.LLMCalls+emb.CacheHits != neo.LLMCalls+neo.CacheHits || emb.LLMCalls != merges {
		t.Errorf("merge calls: embedded %+v, Neo4j %+v, the server answered %d for the embedded run; want the same, and some",
			emb, neo, merges)
	}
	code, out, errOut = runCLI(t, "query", "--mode", "local", "--context-only", "--json", question)
	if code != 0 {
		t.Fatalf("query Neo4j: exit %d\n%s", code, errOut)
	}
	if got := description("Neo4j query", out); got != want {
		t.Errorf("ALDO VARNE on Neo4j:\n%s\nwant the embedded store's:\n%s", got, want)
	}
}
