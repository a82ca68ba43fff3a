package cypher

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strings"
)

//go:embed queries/*.cypher
var queryFiles embed.FS

// query is one embedded statement.
type query struct {
	name   string   // file name without .cypher, used in error messages
	text   string   // the statement, header comments included
	params []string // declared with "// @param name TYPE", sorted
}

// queries holds every embedded statement by name.
type queries map[string]query

var paramLine = regexp.MustCompile(`^\s*//\s*@param\s+(\S+)\s+(\S+)\s*$`)

// loadQueries parses the embedded files. It fails only on a malformed file, which the tests and
// the linter catch long before a release.
func loadQueries() (queries, error) {
	files, err := fs.Glob(queryFiles, "queries/*.cypher")
	if err != nil {
		return nil, err
	}
	qs := make(queries, len(files))
	for _, f := range files {
		b, err := queryFiles.ReadFile(f)
		if err != nil {
			return nil, err
		}
		q, err := parseQuery(strings.TrimSuffix(path.Base(f), ".cypher"), string(b))
		if err != nil {
			return nil, fmt.Errorf("cypher: %s: %w", f, err)
		}
		qs[q.name] = q
	}
	return qs, nil
}

// parseQuery reads the "// @param name TYPE" header lines of a statement.
func parseQuery(name, text string) (query, error) {
	q := query{name: name, text: text}
	for _, line := range strings.Split(text, "\n") {
		if m := paramLine.FindStringSubmatch(line); m != nil {
			q.params = append(q.params, m[1])
		} else if strings.Contains(line, "@param") {
			return query{}, fmt.Errorf("malformed @param line %q", line)
		}
	}
	sort.Strings(q.params)
	return q, nil
}

// get returns the named statement; a missing name is a programming error caught by the tests.
func (qs queries) get(name string) query {
	q, ok := qs[name]
	if !ok {
		panic("cypher: no query " + name)
	}
	return q
}
