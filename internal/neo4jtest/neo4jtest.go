// Package neo4jtest gives tests a real Neo4j server: the one named by NEO4J_URI (with
// NEO4J_USERNAME, NEO4J_PASSWORD, NEO4J_DATABASE), which `make test` starts from
// docker/local/neo4j.sh when none is set.
//
// Without NEO4J_URI a test that needs Neo4j is skipped with a message saying so, unless
// STRATA_REQUIRE_NEO4J=1 (CI sets it), where it fails instead: a Neo4j claim that was never run
// must not pass as checked.
//
// Tests of several packages share the one database (Community Edition has only one), so Require
// holds a lock, a file lock shared by every test process on the machine, until the test ends.
package neo4jtest

import (
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// Marker is the StrataMeta key that marks a database as the tests' own.
const Marker = "strata.test-database"

//go:embed *.cypher
var queries embed.FS

// Server is the Neo4j server a test may use.
type Server struct {
	URI, Username, Password, Database string
}

// inProcess serializes tests of one process: a second flock on another descriptor in the same
// process would wait for the first forever.
var inProcess sync.Mutex

// Require returns the server from the environment, held for t alone until t ends. Without
// NEO4J_URI it skips t, or fails it when STRATA_REQUIRE_NEO4J=1.
func Require(t testing.TB) Server {
	t.Helper()
	s := Server{
		URI:      os.Getenv("NEO4J_URI"),
		Username: os.Getenv("NEO4J_USERNAME"),
		Password: os.Getenv("NEO4J_PASSWORD"),
		Database: os.Getenv("NEO4J_DATABASE"),
	}
	if s.URI == "" {
		msg := "NEO4J_URI is not set: this Neo4j test did not run (`make test` starts a local server; " +
			"or run docker/local/neo4j.sh up and set NEO4J_URI=bolt://127.0.0.1:7687)"
		if os.Getenv("STRATA_REQUIRE_NEO4J") == "1" {
			t.Fatal("STRATA_REQUIRE_NEO4J=1 but " + msg)
		}
		t.Skip(msg)
	}
	inProcess.Lock()
	unlock, err := lockFile(s)
	if err != nil {
		inProcess.Unlock()
		t.Fatalf("lock the test database: %v", err)
	}
	t.Cleanup(func() {
		unlock()
		inProcess.Unlock()
	})
	logRun(t)
	return s
}

// logRun appends the test's name to the file named by STRATA_NEO4J_TEST_LOG, which
// docker/local/with-neo4j.sh counts to show how many tests really used the server: each test
// that Require granted it and each subtest that Reset the database for itself.
func logRun(t testing.TB) {
	path := os.Getenv("STRATA_NEO4J_TEST_LOG")
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		t.Logf("neo4jtest: record the run in %s: %v", path, err)
		return
	}
	defer f.Close()
	fmt.Fprintln(f, filepath.Base(os.Args[0]), t.Name())
}

// lockFile takes an exclusive flock on a file named after the server and database, waiting for
// other test processes to release it.
func lockFile(s Server) (func(), error) {
	sum := sha256.Sum256([]byte(s.URI + "\x00" + s.Database))
	path := filepath.Join(os.TempDir(), "strata-neo4jtest-"+hex.EncodeToString(sum[:6])+".lock")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("flock %s: %w", path, err)
	}
	return func() { f.Close() }, nil
}

// Setenv points the NEO4J_* variables at s for the rest of t, for code that reads them.
func (s Server) Setenv(t testing.TB) {
	t.Setenv("NEO4J_URI", s.URI)
	t.Setenv("NEO4J_USERNAME", s.Username)
	t.Setenv("NEO4J_PASSWORD", s.Password)
	t.Setenv("NEO4J_DATABASE", s.Database)
}

// Reset empties the database: its nodes, strata's vector indexes and in-memory GDS graphs. It
// refuses a database holding data the tests did not write (so that pointing NEO4J_URI at real
// data cannot destroy it) unless STRATA_NEO4J_TEST_WIPE=1, and marks the database as the tests'.
func (s Server) Reset(t testing.TB) {
	t.Helper()
	if os.Getenv("STRATA_NEO4J_TEST_WIPE") != "1" {
		rows := s.Run(t, "foreign_data", map[string]any{"marker": Marker})
		if len(rows) == 1 && rows[0]["used"] == true && rows[0]["marked"] != true {
			t.Fatalf("the database at %s holds data that strata's tests did not write, and they wipe it; "+
				"point NEO4J_URI/NEO4J_DATABASE at an empty database or set STRATA_NEO4J_TEST_WIPE=1", s.URI)
		}
	}
	s.Run(t, "wipe_nodes", nil)
	for _, index := range []string{"chunk_embedding", "entity_embedding", "community_embedding"} {
		s.Run(t, "drop_index", map[string]any{"name": index})
	}
	if rows := s.Run(t, "has_gds", nil); len(rows) == 1 && rows[0]["installed"] == true {
		s.Run(t, "wipe_gds", nil)
	}
	s.Run(t, "mark", map[string]any{"marker": Marker})
	logRun(t)
}

// Run runs one of this package's .cypher files in an auto-commit transaction and returns its
// rows; an error fails t.
func (s Server) Run(t testing.TB, name string, params map[string]any) []map[string]any {
	t.Helper()
	text, err := queries.ReadFile(name + ".cypher")
	if err != nil {
		t.Fatalf("neo4jtest: %v", err)
	}
	rows, err := s.Query(context.Background(), string(text), params)
	if err != nil {
		t.Fatalf("neo4jtest %s: %v", name, err)
	}
	return rows
}

// Query runs one statement in an auto-commit transaction and returns its rows as maps.
func (s Server) Query(ctx context.Context, statement string, params map[string]any) ([]map[string]any, error) {
	auth := neo4j.NoAuth()
	if s.Username != "" || s.Password != "" {
		auth = neo4j.BasicAuth(s.Username, s.Password, "")
	}
	driver, err := neo4j.NewDriverWithContext(s.URI, auth)
	if err != nil {
		return nil, err
	}
	defer driver.Close(ctx)
	session := driver.NewSession(ctx, neo4j.SessionConfig{DatabaseName: s.Database})
	defer session.Close(ctx)
	result, err := session.Run(ctx, statement, params)
	if err != nil {
		return nil, err
	}
	records, err := result.Collect(ctx)
	if err != nil {
		return nil, err
	}
	rows := make([]map[string]any, len(records))
	for i, r := range records {
		rows[i] = r.AsMap()
	}
	return rows, nil
}
