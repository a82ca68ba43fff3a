package embedded

import (
	"testing"

	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/graph/storetest"
)

// openTemp opens a new store in a fresh temporary directory, closed at the end of the test.
func openTemp(t testing.TB) *Store {
	t.Helper()
	s, err := Open(t.Context(), t.TempDir(), Options{})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

func TestContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) graph.Store { return openTemp(t) })
}
