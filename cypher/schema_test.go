package cypher

import (
	"slices"
	"strings"
	"testing"
)

// TestInitSkipsExistingSchema: Open creates only the constraints and indexes that are missing,
// and waits for indexes only when it created one or one is not online yet.
func TestInitSkipsExistingSchema(t *testing.T) {
	existing := func(skip string, state string) []map[string]any {
		var rows []map[string]any
		for _, o := range schemaObjects {
			if o.name == skip {
				continue
			}
			row := map[string]any{"name": o.name, "owningConstraint": nil, "state": state}
			if o.constraint {
				row["owningConstraint"] = o.name
			}
			rows = append(rows, row)
		}
		return rows
	}
	for _, tc := range []struct {
		name        string
		rows        []map[string]any
		wantCreated []string
		wantAwait   bool
	}{
		{name: "all online", rows: existing("", "ONLINE")},
		{name: "one populating", rows: existing("", "POPULATING"), wantAwait: true},
		{name: "full-text index missing", rows: existing("entity_text", "ONLINE"), wantCreated: []string{qSchemaFulltextEntity}, wantAwait: true},
		{name: "constraint missing", rows: existing("chunk_id", "ONLINE"), wantCreated: []string{qSchemaConstraintChunk}, wantAwait: true},
		{
			// An index named like a constraint is no constraint: CREATE CONSTRAINT … IF NOT
			// EXISTS decides.
			name:        "index in a constraint's name",
			rows:        append(existing("entity_id", "ONLINE"), map[string]any{"name": "entity_id", "state": "ONLINE"}),
			wantCreated: []string{qSchemaConstraintEntity}, wantAwait: true,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, f := newFakeStore(t, Config{}, "")
			srv := newSchemaServer()
			srv.rows[qServerComponents] = []map[string]any{{"name": "Neo4j Kernel", "versions": []any{"5.26.0"}, "edition": "community"}}
			srv.rows[qSchemaExisting] = tc.rows
			f.answer = srv.answer
			if err := s.init(t.Context()); err != nil {
				t.Fatal(err)
			}
			var created []string
			for _, n := range f.names() {
				if strings.HasPrefix(n, "schema_constraint_") || strings.HasPrefix(n, "schema_index_") || strings.HasPrefix(n, "schema_fulltext_") {
					created = append(created, n)
				}
			}
			if !slices.Equal(created, tc.wantCreated) {
				t.Errorf("created %v, want %v", created, tc.wantCreated)
			}
			if await := slices.Contains(f.names(), qSchemaAwait); await != tc.wantAwait {
				t.Errorf("waited for indexes: %v, want %v", await, tc.wantAwait)
			}
		})
	}
}
