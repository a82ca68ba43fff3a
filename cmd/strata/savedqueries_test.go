package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stratarag/strata/internal/neo4jtest"
)

// savedQueries are the statements of docker/saved-queries.cypher by title (the text after
// "// strata: " in the comment that opens each one).
func savedQueries(t *testing.T) map[string]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "docker", "saved-queries.cypher"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, stmt := range strings.Split(string(b), ";\n") {
		title := ""
		for _, line := range strings.Split(stmt, "\n") {
			if rest, ok := strings.CutPrefix(line, "// strata: "); ok {
				title = rest
			}
		}
		if strings.TrimSpace(stmt) == "" {
			continue
		}
		if title == "" {
			t.Fatalf("a saved query has no \"// strata: title\" line:\n%s", stmt)
		}
		out[title] = stmt
	}
	return out
}

// checkSavedQueries runs every saved Browser query on the demo graph (testdata ingested) with
// parameters that exist in it, as a user following docker/README.md would, and checks that
// each runs and returns what it should. A statement added to the file without an entry here
// fails the test.
func checkSavedQueries(t *testing.T, srv neo4jtest.Server) {
	params := map[string]any{
		"entityId": "EDDA FENWICK", "from": "EDDA FENWICK", "to": "KESTREL POINT LIGHTHOUSE",
		"communityId": "0-0", "level": int64(0), "documentId": "edda-fenwick.txt", "text": "lighthouse keeper",
	}
	// Every saved query must return rows on the demo graph, except where noted.
	mayBeEmpty := map[string]string{}
	queries := savedQueries(t)
	known := map[string]bool{
		"what the graph holds": true, "documents, newest first": true,
		"one document as its chain of chunks ($documentId)":                               true,
		"entities mentioned by most chunks":                                               true,
		"an entity, its relations and the chunks it comes from ($entityId)":               true,
		"entities per layer (0 = extracted, 1 and up = summaries)":                        true,
		"the summaries above an entity, layer by layer ($entityId)":                       true,
		"summary entities with their members":                                             true,
		"connected components by size":                                                    true,
		"communities per level (0 = coarsest)":                                            true,
		"best-rated community reports of a level ($level)":                                true,
		"the community tree below the coarsest communities":                               true,
		"one community, its members and the relations among them ($communityId)":          true,
		"the communities of an entity at every level ($entityId)":                         true,
		"a shortest path between two entities, as bridge retrieval walks it ($from, $to)": true,
		"full-text search over entity names and descriptions ($text)":                     true,
		"settings strata recorded (embedding model and others)":                           true,
	}
	// The demo graph's Leiden run may find a single level (no CHILD_OF), depending on the
	// backend's node order.
	mayBeEmpty["the community tree below the coarsest communities"] = "the hierarchy may have one level"
	for title := range queries {
		if !known[title] {
			t.Errorf("saved query %q has no parameters and expectations in this test", title)
		}
	}
	for title := range known {
		if _, ok := queries[title]; !ok {
			t.Errorf("saved query %q is gone from docker/saved-queries.cypher; update this test", title)
		}
	}
	ctx := context.Background()
	for title, stmt := range queries {
		rows, err := srv.Query(ctx, stmt, params)
		if err != nil {
			t.Errorf("saved query %q: %v", title, err)
			continue
		}
		if len(rows) == 0 && mayBeEmpty[title] == "" {
			t.Errorf("saved query %q returned no rows on the demo graph", title)
		}
	}

	// Whatever a user types into $text, the full-text query runs.
	fulltext := queries["full-text search over entity names and descriptions ($text)"]
	for _, text := range []string{`title:"(`, `\`, `AND`, `a && b || !c`, `[x TO y]`, `*`, "🙂", "   ", `O'Brien U.S.`} {
		if _, err := srv.Query(ctx, fulltext, map[string]any{"text": text}); err != nil {
			t.Errorf("full-text saved query with $text = %q: %v", text, err)
		}
	}
}
