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

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j/dbtype"

	"github.com/stratarag/strata/internal/neo4jtest"
)

var savedQueriesFile = filepath.Join("..", "..", "docker", "saved-queries.cypher")

// savedQuery is one statement of docker/saved-queries.cypher.
type savedQuery struct {
	title     string         // the text after "// strata: " in the comment above it
	statement string         // the query Browser runs, comments included, without the ";"
	params    []string       // the parameters it uses, sorted
	values    map[string]any // what the ":param name => value;" lines of its block set
}

// savedQueryFile is docker/saved-queries.cypher read as Browser users read it.
type savedQueryFile struct {
	queries  []savedQuery
	declared []string // the "// @param" declarations the Cypher lint checks
}

var (
	paramUse  = regexp.MustCompile(`\$([A-Za-z_][A-Za-z0-9_]*)`)
	paramSet  = regexp.MustCompile(`^:param\s+(\w+)\s*=>\s*(.+?)\s*;$`)
	paramDecl = regexp.MustCompile(`^//\s*@param\s+(\w+)\s+\S+\s*$`)
)

// readSavedQueries splits the file into its blocks as a user copies them into Browser: the
// "// strata: " comment that names a query, the ":param name => value;" lines that set its
// parameters (Browser runs them first, one statement each), and the query, which ends with a
// line ending in ";" (the Cypher lint, with "// @statements many", splits the file with Neo4j's
// parser, console commands included, and checks that it parses).
func readSavedQueries(t *testing.T) savedQueryFile {
	t.Helper()
	b, err := os.ReadFile(savedQueriesFile)
	if err != nil {
		t.Fatal(err)
	}
	var f savedQueryFile
	var lines []string
	title := ""
	values := map[string]any{}
	for i, line := range strings.Split(string(b), "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "//") {
			if rest, ok := strings.CutPrefix(trimmed, "// strata: "); ok {
				title = rest
			}
			if m := paramDecl.FindStringSubmatch(trimmed); m != nil {
				f.declared = append(f.declared, m[1])
			}
		}
		if strings.HasPrefix(trimmed, ":") {
			m := paramSet.FindStringSubmatch(trimmed)
			if m == nil {
				t.Fatalf("%s:%d: %q: want \":param name => value;\" (a quoted string or an integer)", savedQueriesFile, i+1, trimmed)
			}
			if _, dup := values[m[1]]; dup {
				t.Errorf("%s:%d: $%s is set twice for one query", savedQueriesFile, i+1, m[1])
			}
			values[m[1]] = exampleValue(t, i+1, m[2])
			continue
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
		q := savedQuery{title: title, statement: stmt, values: values}
		for _, m := range paramUse.FindAllStringSubmatch(strings.Join(code, "\n"), -1) {
			if !slices.Contains(q.params, m[1]) {
				q.params = append(q.params, m[1])
			}
		}
		slices.Sort(q.params)
		f.queries = append(f.queries, q)
		lines, title, values = nil, "", map[string]any{}
	}
	if rest := strings.TrimSpace(strings.Join(lines, "\n")); rest != "" || len(values) > 0 {
		t.Fatalf("%s ends with text that is not a statement ending in \";\":\n%s", savedQueriesFile, rest)
	}
	return f
}

// exampleValue reads the value of a ":param" line: a quoted string or an integer.
func exampleValue(t *testing.T, line int, s string) any {
	t.Helper()
	if len(s) >= 2 && s[0] == '\'' && s[len(s)-1] == '\'' && !strings.ContainsAny(s[1:len(s)-1], `'\`) {
		return s[1 : len(s)-1]
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatalf("%s:%d: :param value %q is neither a quoted string nor an integer", savedQueriesFile, line, s)
	}
	return n
}

// savedQueryCheck is what a saved query must give on the demo graph (testdata/corpus ingested
// offline) with the parameter values its ":param" lines set.
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
// every parameter a query uses is set by a ":param" line of its block, so that the block runs
// as pasted, and declared with "// @param" for the lint; a block sets no parameter its query
// does not use.
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
			if _, ok := q.values[p]; !ok {
				t.Errorf("saved query %q uses $%s, which no \":param %s => …;\" line of its block sets", q.title, p, p)
			}
			if !slices.Contains(f.declared, p) {
				t.Errorf("saved query %q uses $%s, which the header does not declare with \"// @param\"", q.title, p)
			}
		}
		for name := range q.values {
			if !slices.Contains(q.params, name) {
				t.Errorf("saved query %q sets $%s, which it does not use", q.title, name)
			}
		}
	}
	for title := range savedQueryChecks {
		if !seen[title] {
			t.Errorf("savedQueryChecks names %q, which is not in %s", title, savedQueriesFile)
		}
	}
}

// checkSavedQueries runs every saved Browser query as a user following docker/README.md does,
// on srv holding the demo graph (TestNeo4jEndToEnd ingests testdata/corpus offline and calls
// it), with the parameter values its ":param" lines set, and checks what savedQueryChecks says
// of each and that Neo4j notifies nothing when it plans it (a cartesian product, a deprecated
// feature, an unknown label); then the queries that take free input with input a user might
// type.
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
			params := q.values
			for _, n := range planNotifications(t, srv, q.statement, params) {
				t.Errorf("Neo4j notifies when it plans the query: %s", n)
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

// planNotifications returns the notifications Neo4j gives when it plans statement (EXPLAIN:
// nothing runs), as Browser shows them beside a query's result. All of them count: Neo4j 5.26
// reports a cartesian product at severity INFORMATION, not WARNING.
func planNotifications(t *testing.T, srv neo4jtest.Server, statement string, params map[string]any) []string {
	t.Helper()
	ctx := context.Background()
	auth := neo4j.NoAuth()
	if srv.Username != "" || srv.Password != "" {
		auth = neo4j.BasicAuth(srv.Username, srv.Password, "")
	}
	driver, err := neo4j.NewDriverWithContext(srv.URI, auth)
	if err != nil {
		t.Fatal(err)
	}
	defer driver.Close(ctx)
	session := driver.NewSession(ctx, neo4j.SessionConfig{DatabaseName: srv.Database})
	defer session.Close(ctx)
	result, err := session.Run(ctx, "EXPLAIN\n"+statement, params)
	if err != nil {
		t.Fatalf("EXPLAIN: %v", err)
	}
	summary, err := result.Consume(ctx)
	if err != nil {
		t.Fatalf("EXPLAIN: %v", err)
	}
	var notes []string
	for _, n := range summary.Notifications() {
		notes = append(notes, n.RawSeverityLevel()+" "+n.Code()+": "+n.Description())
	}
	return notes
}
