package embedded

import (
	"context"
	"errors"

	"github.com/stratarag/strata/internal/graph"
)

// errPending is returned by the graph algorithms until internal/graphalgo lands.
var errPending = errors.New("graph algorithms are not available yet in the embedded store")

// ShortestPaths is not implemented yet.
func (s *Store) ShortestPaths(ctx context.Context, reqs []graph.PathRequest, maxHops int) ([]graph.Path, error) {
	return nil, errPending
}

// ComputeComponents is not implemented yet.
func (s *Store) ComputeComponents(ctx context.Context) (int, error) { return 0, errPending }

// ComputeCommunities is not implemented yet.
func (s *Store) ComputeCommunities(ctx context.Context, p graph.LeidenParams) ([]graph.Community, error) {
	return nil, errPending
}
