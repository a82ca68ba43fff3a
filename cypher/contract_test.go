package cypher

import (
	"context"
	"testing"
	"time"

	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/graph/storetest"
)

// TestContract runs the graph.Store contract suite against the Neo4j server of the environment
// (see package neo4jtest), on an emptied database before every subtest.
func TestContract(t *testing.T) {
	srv, cfg := emptyServer(t)
	first := openTestStore(t, cfg)
	t.Logf("Neo4j %s, GDS %q", first.ServerVersion(), first.GDSVersion())
	if first.GDSVersion() == "" {
		t.Log("GDS is not installed: the ComputeComponents and ComputeCommunities tests will fail with ErrNoGDS")
	}
	storetest.Run(t, func(t *testing.T) graph.Store {
		srv.Reset(t)
		return openTestStore(t, cfg)
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

// residentPair opens two stores on one emptied database: a plain one, which writes and answers
// from the database, and a resident one (as strata serve opens), whose copies must answer the
// same.
func residentPair(t *testing.T) (plain, resident *Store) {
	t.Helper()
	_, cfg := emptyServer(t)
	plain = openTestStore(t, cfg)
	cfg.Resident = true
	return plain, openTestStore(t, cfg)
}

// mustApply writes b through s or ends the test.
func mustApply(t *testing.T, s *Store, b graph.Batch) {
	t.Helper()
	if err := s.Apply(t.Context(), b); err != nil {
		t.Fatal(err)
	}
}

// TestContractResident runs the contract suite on a resident store (as strata serve opens): its
// in-memory read paths must answer what the database answers, and follow every write.
func TestContractResident(t *testing.T) {
	srv, cfg := emptyServer(t)
	cfg.Resident = true
	storetest.Run(t, func(t *testing.T) graph.Store {
		srv.Reset(t)
		return openTestStore(t, cfg)
	})
}
