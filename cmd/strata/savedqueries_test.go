package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j/dbtype"

	"github.com/stratarag/strata/internal/neo4jtest"
)

var savedQueriesFile = filepath.Join("..", "..", "docker", "saved-queries.cypher")

// savedQuery is one statement of docker/saved-queries.cypher.
type savedQuery struct {
	title     string   // the text after "// strata: " in the comment above it
	statement string   // what a user pastes into Browser, comments included, without the ";"
	params    []string // the parameters it uses, sorted
}

// savedQueryFile is docker/saved-queries.cypher read as Browser users read it.
type savedQueryFile struct {
	queries  []savedQuery
	examples map[string]any // the ":param name => value" examples of the header
	declared []string       // the "// @param" declarations the Cypher lint checks
}

var (
	paramUse     = regexp.MustCompile(`\$([A-Za-z_][A-Za-z0-9_]*)`)
	paramExample = regexp.MustCompile(`^//\s+:param\s+(\w+)\s*=>\s*(.+?)\s*$`)
	paramDecl    = regexp.MustCompile(`^//\s*@param\s+(\w+)\s+\S+\s*$`)
)

// readSavedQueries splits the file into its statements: each ends with a line ending in ";"
// (the Cypher lint, with "// @statements many", splits it with Neo4j's parser and checks that
// it parses), and is named by the last "// strata: " comment before it.
func readSavedQueries(t *testing.T) savedQueryFile {
	t.Helper()
	b, err := os.ReadFile(savedQueriesFile)
	if err != nil {
		t.Fatal(err)
	}
	f := savedQueryFile{examples: map[string]any{}}
	var lines []string
	title := ""
	for i, line := range strings.Split(string(b), "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "//") {
			if rest, ok := strings.CutPrefix(trimmed, "// strata: "); ok {
				title = rest
			}
			if m := paramExample.FindStringSubmatch(trimmed); m != nil {
				f.examples[m[1]] = exampleValue(t, i+1, m[2])
			}
			if m := paramDecl.FindStringSubmatch(trimmed); m != nil {
				f.declared = append(f.declared, m[1])
			}
		}
		if trimmed == "" && len(lines) == 0 {
			continue
		}
		lines = append(lines, line)
		if strings.HasPrefix(trimmed, "//") || !strings.HasSuffix(trimmed, ";") {
			continue
		}
		stmt := strings.TrimSuffix(strings.TrimSpace(strings.Join(lines, "\n")), ";")
		var code []string
		for _, l := range strings.Split(stmt, "\n") {
			if !strings.HasPrefix(strings.TrimSpace(l), "//") {
				code = append(code, l)
			}
		}
		q := savedQuery{title: title, statement: stmt}
		for _, m := range paramUse.FindAllStringSubmatch(strings.Join(code, "\n"), -1) {
			if !slices.Contains(q.params, m[1]) {
				q.params = append(q.params, m[1])
			}
		}
		slices.Sort(q.params)
		f.queries = append(f.queries, q)
		lines, title = nil, ""
	}
	if rest := strings.TrimSpace(strings.Join(lines, "\n")); rest != "" {
		t.Fatalf("%s ends with text that is not a statement ending in \";\":\n%s", savedQueriesFile, rest)
	}
	return f
}

// exampleValue reads the value of a ":param" example: a quoted string or an integer.
func exampleValue(t *testing.T, line int, s string) any {
	t.Helper()
	if len(s) >= 2 && s[0] == '\'' && s[len(s)-1] == '\'' {
		return s[1 : len(s)-1]
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatalf("%s:%d: :param value %q is neither a quoted string nor an integer", savedQueriesFile, line, s)
	}
	return n
}

// savedQueryCheck is what a saved query must give on the demo graph (testdata/corpus ingested
// offline) with the parameter values of the file's header.
type savedQueryCheck struct {
	// mayBeEmpty says why the demo graph may give no rows; "" when it must give some.
	mayBeEmpty string
	// graph: Browser draws it, so the rows hold nodes, relationships or paths.
	graph bool
	// check looks further at the rows.
	check func(t *testing.T, rows []map[string]any)
}

// savedQueryChecks holds an entry for every statement of docker/saved-queries.cypher: a new one
// fails TestSavedQueriesFile until it has one. The demo graph has rows for every query; none may
// be empty.
var savedQueryChecks = map[string]savedQueryCheck{
	"what the graph holds": {check: func(t *testing.T, rows []map[string]any) {
		if len(rows) != 1 || rows[0]["documents"] != int64(17) || rows[0]["entities"] == int64(0) {
			t.Errorf("rows = %v, want one row counting 17 documents and some entities", rows)
		}
	}},
	"documents, newest first": {check: func(t *testing.T, rows []map[string]any) {
		if len(rows) != 17 {
			t.Errorf("%d rows, want the 17 documents", len(rows))
		}
	}},
	"one document as its chain of chunks ($documentId)":        {graph: true},
	"entities mentioned by most chunks":                        {},
	"entities per layer (0 = extracted, 1 and up = summaries)": {},
	"an entity, its relations and the chunks it comes from ($entityId)": {graph: true, check: func(t *testing.T, rows []map[string]any) {
		// Gathered apart, relations and sources do not multiply into one row per pair.
		if len(rows) != 1 {
			t.Fatalf("%d rows, want 1", len(rows))
		}
		for _, col := range []string{"relations", "sources"} {
			if l, ok := rows[0][col].([]any); !ok || len(l) == 0 || len(l) > 50 {
				t.Errorf("%s = %v, want 1 to 50 paths", col, rows[0][col])
			}
		}
	}},
	"the summaries above an entity, layer by layer ($entityId)": {graph: true},
	"summary entities with their members":                       {},
	"the lowest common ancestor of two entities and the paths up to it, as lca retrieval walks them ($from, $to)": {graph: true, check: func(t *testing.T, rows []map[string]any) {
		// One row: the two entities' paths up to their ancestor (or their tops), at least one each.
		if len(rows) != 1 {
			t.Fatalf("%d rows, want 1", len(rows))
		}
		paths, _ := rows[0]["paths"].([]any)
		starts := map[string]bool{}
		for _, p := range paths {
			if p, ok := p.(dbtype.Path); ok && len(p.Nodes) > 0 {
				id, _ := p.Nodes[0].Props["id"].(string)
				starts[id] = true
				if a, ok := rows[0]["ancestor"].(dbtype.Node); ok && p.Nodes[len(p.Nodes)-1].ElementId != a.ElementId {
					t.Errorf("a path from %s ends below the ancestor", id)
				}
			}
		}
		if len(starts) != 2 {
			t.Errorf("paths start at %v, want both entities", starts)
		}
	}},
	"connected components by size":                     {},
	"communities per level (0 = coarsest)":             {},
	"best-rated community reports of a level ($level)": {},
	// A coarsest community is its own zero-length path, so the tree has rows even when Leiden
	// finds one level (as it does on the demo graph).
	"the community tree below the coarsest communities": {graph: true},
	"what each chunk said about an entity, in the order it is merged ($entityId)": {check: func(t *testing.T, rows []map[string]any) {
		said := 0
		for _, r := range rows {
			if r["subjectLink"] == false && r["said"] != "" {
				said++
			}
		}
		if said == 0 {
			t.Errorf("rows = %v, want the chunks' evidence about the entity", rows)
		}
	}},
	"one community, its members and the relations among them ($communityId)": {graph: true, check: func(t *testing.T, rows []map[string]any) {
		if len(rows) != 1 {
			t.Fatalf("%d rows, want 1", len(rows))
		}
		if l, ok := rows[0]["members"].([]any); !ok || len(l) == 0 || len(l) > 100 {
			t.Errorf("members = %v, want 1 to 100 paths", rows[0]["members"])
		}
	}},
	"the communities of an entity at every level ($entityId)": {},
	"attributed communities per layer (ingest --arch)": {check: func(t *testing.T, rows []map[string]any) {
		if rows[0]["layer"] != int64(1) || rows[0]["communities"] == int64(0) {
			t.Errorf("first row %v, want layer 1 with some communities", rows[0])
		}
	}},
	"the attributed communities above an entity, with their links ($entityId)": {graph: true, check: func(t *testing.T, rows []map[string]any) {
		p, ok := rows[0]["p"].(dbtype.Path)
		if !ok || len(p.Relationships) == 0 || p.Relationships[0].Type != "ARCH_MEMBER_OF" {
			t.Errorf("p = %v, want a path up ARCH_MEMBER_OF", rows[0]["p"])
		}
	}},
	"a shortest path between two entities, as bridge retrieval walks it ($from, $to)": {graph: true, check: func(t *testing.T, rows []map[string]any) {
		if p, ok := rows[0]["p"].(dbtype.Path); !ok || len(p.Relationships) == 0 || len(p.Relationships) > 4 {
			t.Errorf("p = %v, want a path of 1 to 4 hops", rows[0]["p"])
		}
	}},
	"full-text search over entity names and descriptions ($text)": {check: func(t *testing.T, rows []map[string]any) {
		if name, _ := rows[0]["name"].(string); !strings.Contains(strings.ToLower(name), "lighthouse") {
			t.Errorf("best match %q, want a lighthouse", name)
		}
	}},
	"settings strata recorded (embedding model and others)": {},
}

// TestSavedQueriesFile needs no server: every saved query has an entry in savedQueryChecks, and
// every parameter a query uses has a ":param" example in the header and a "// @param"
// declaration.
func TestSavedQueriesFile(t *testing.T) {
	f := readSavedQueries(t)
	if len(f.queries) < len(savedQueryChecks) {
		t.Errorf("%d statements in %s, want at least %d", len(f.queries), savedQueriesFile, len(savedQueryChecks))
	}
	seen := map[string]bool{}
	for i, q := range f.queries {
		if q.title == "" {
			t.Errorf("statement %d has no \"// strata: title\" comment:\n%s", i+1, q.statement)
			continue
		}
		if seen[q.title] {
			t.Errorf("two saved queries are titled %q", q.title)
		}
		seen[q.title] = true
		if _, ok := savedQueryChecks[q.title]; !ok {
			t.Errorf("saved query %q has no entry in savedQueryChecks: say what it must return on the demo graph", q.title)
		}
		for _, p := range q.params {
			if _, ok := f.examples[p]; !ok {
				t.Errorf("saved query %q uses $%s, which the header gives no \":param %s => …\" example for", q.title, p, p)
			}
			if !slices.Contains(f.declared, p) {
				t.Errorf("saved query %q uses $%s, which the header does not declare with \"// @param\"", q.title, p)
			}
		}
	}
	for title := range savedQueryChecks {
		if !seen[title] {
			t.Errorf("savedQueryChecks names %q, which is not in %s", title, savedQueriesFile)
		}
	}
	for name := range f.examples {
		if !slices.Contains(f.declared, name) {
			t.Errorf("the header's \":param %s\" example is used by no query", name)
		}
	}
}

// checkSavedQueries runs every saved Browser query as a user following docker/README.md does,
// on srv holding the demo graph (TestNeo4jEndToEnd ingests testdata/corpus offline and calls
// it), with the parameter values the file's header gives, and checks what savedQueryChecks says
// of each; then the queries that take free input with input a user might type.
func checkSavedQueries(t *testing.T, srv neo4jtest.Server) {
	t.Helper()
	f := readSavedQueries(t)
	ctx := context.Background()
	byTitle := map[string]savedQuery{}
	for _, q := range f.queries {
		byTitle[q.title] = q
		t.Run(q.title, func(t *testing.T) {
			want, ok := savedQueryChecks[q.title]
			if !ok {
				t.Fatal("no entry in savedQueryChecks")
			}
			params := map[string]any{}
			for _, p := range q.params {
				params[p] = f.examples[p]
			}
			rows, err := srv.Query(ctx, q.statement, params)
			if err != nil {
				t.Fatalf("with %v: %v", params, err)
			}
			if len(rows) == 0 {
				if want.mayBeEmpty == "" {
					t.Errorf("no rows with %v on the demo graph", params)
				}
				return
			}
			if want.graph && !slices.ContainsFunc(rows, func(r map[string]any) bool { return drawable(r) }) {
				t.Errorf("no nodes, relationships or paths for Browser to draw: %v", rows[0])
			}
			if want.check != nil {
				want.check(t, rows)
			}
		})
	}

	// Whatever a user types into $text, the full-text query runs: Lucene never sees its syntax,
	// and never more terms than it accepts.
	fulltext := byTitle["full-text search over entity names and descriptions ($text)"].statement
	for _, text := range []string{
		`title:"(`, `\`, `lighthouse\`, `AND`, `NOT`, `a && b || !c`, `[x TO y]`, `*`, `?`, `~`, `/`, "🙂", "",
		"   ", "\t", "\u3000", "tab\tAND", `O'Brien U.S.`, strings.Repeat("x,", 3000), strings.Repeat("東", 3000),
		strings.Repeat("🙂", 3000), strings.Repeat("aタ", 3000), strings.Repeat("x", 10000), strings.Repeat(`"`, 10000),
	} {
		if _, err := srv.Query(ctx, fulltext, map[string]any{"text": text}); err != nil {
			t.Errorf("full-text saved query with $text = %.40q: %v", text, err)
		}
	}
	// The same entity at both ends: no path and no error (shortestPath refuses one node).
	path := byTitle["a shortest path between two entities, as bridge retrieval walks it ($from, $to)"].statement
	if rows, err := srv.Query(ctx, path, map[string]any{"from": "EDDA FENWICK", "to": "EDDA FENWICK"}); err != nil || len(rows) != 0 {
		t.Errorf("shortest path from an entity to itself: %v, %v; want no rows", rows, err)
	}
}

// drawable reports whether a value holds something Browser draws.
func drawable(v any) bool {
	switch v := v.(type) {
	case dbtype.Node, dbtype.Relationship, dbtype.Path:
		return true
	case []any:
		return slices.ContainsFunc(v, drawable)
	case map[string]any:
		for _, x := range v {
			if drawable(x) {
				return true
			}
		}
	}
	return false
}
