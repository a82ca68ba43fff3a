package cypher

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/graph/storetest"
)

// testMarker is the StrataMeta key that marks a database as the contract test's own.
const testMarker = "strata.contract-test"

// TestContract runs the graph.Store contract suite against a real Neo4j server. It needs
// NEO4J_URI (and NEO4J_USERNAME, NEO4J_PASSWORD, NEO4J_DATABASE as needed); docker/README.md
// starts a suitable server. The suite wipes the database before every subtest, so it refuses a
// database holding data it did not write unless STRATA_NEO4J_TEST_WIPE=1.
func TestContract(t *testing.T) {
	cfg := ConfigFromEnv()
	if cfg.URI == "" {
		t.Skip("NEO4J_URI is not set: the Neo4j contract tests did not run " +
			"(start Neo4j with docker/README.md and set NEO4J_URI, NEO4J_USERNAME, NEO4J_PASSWORD to run them)")
	}
	first := openTestStore(t, cfg)
	refuseForeignData(t, first)
	if first.GDSVersion() == "" {
		t.Log("GDS is not installed: the ComputeComponents and ComputeCommunities tests will fail with ErrNoGDS")
	}
	storetest.Run(t, func(t *testing.T) graph.Store {
		s := openTestStore(t, cfg)
		wipe(t, s)
		return s
	})
}

// openTestStore opens a store that is closed when the test ends.
func openTestStore(t *testing.T, cfg Config) *Store {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	s, err := Open(ctx, cfg)
	if err != nil {
		t.Fatalf("Open(%s): %v", cfg, err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// testQuery loads a statement from testdata/.
func testQuery(t *testing.T, name string) query {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name+".cypher"))
	if err != nil {
		t.Fatal(err)
	}
	q, err := parseQuery(name, string(b))
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// refuseForeignData stops the run when the database holds data the test did not write.
func refuseForeignData(t *testing.T, s *Store) {
	if os.Getenv("STRATA_NEO4J_TEST_WIPE") == "1" {
		return
	}
	var used, marked bool
	err := s.run.read(t.Context(), func(x tx) error {
		rows, err := x.run(t.Context(), testQuery(t, "foreign_data"), map[string]any{"marker": testMarker})
		if err != nil || len(rows) == 0 {
			return err
		}
		f := fields{m: rows[0]}
		used, marked = f.bool("used"), f.bool("marked")
		return f.err
	})
	if err != nil {
		t.Fatalf("inspect the test database: %v", err)
	}
	if used && !marked {
		t.Fatalf("the database at NEO4J_URI holds data that the contract test did not write, and the test " +
			"wipes it between subtests; point NEO4J_URI/NEO4J_DATABASE at an empty database or set " +
			"STRATA_NEO4J_TEST_WIPE=1")
	}
}

// wipe empties the database, drops the vector indexes and the GDS projection, and marks the
// database as the test's own.
func wipe(t *testing.T, s *Store) {
	t.Helper()
	ctx := t.Context()
	steps := []string{"wipe_nodes", "wipe_vector_chunk", "wipe_vector_entity", "wipe_vector_community"}
	for _, name := range steps {
		q := testQuery(t, name)
		if err := s.run.write(ctx, func(x tx) error { _, err := x.run(ctx, q, nil); return err }); err != nil {
			t.Fatalf("wipe the test database (%s): %v", name, err)
		}
	}
	if s.gds != "" {
		s.dropProjection(ctx)
	}
	mark := testQuery(t, "mark")
	if err := s.run.write(ctx, func(x tx) error {
		_, err := x.run(ctx, mark, map[string]any{"marker": testMarker})
		return err
	}); err != nil {
		t.Fatalf("mark the test database: %v", err)
	}
	s.dimsMu.Lock()
	clear(s.dims)
	s.dimsMu.Unlock()
}
