package cypher

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/stratarag/strata/internal/graph"
)

// metaCommunityGeneration is the StrataMeta key of the counter that every write of Community
// nodes moves on: reports (Apply), a new hierarchy (writeHierarchy, before and after it) and an
// update of it (UpdateCommunities).
const metaCommunityGeneration = "communities.generation"

// residentCommunities is a resident store's copy of the community lists CommunitiesByLevel
// returned, by level: global mode reads two or three whole levels, reports and embeddings
// included, per query. It belongs to one generation of metaCommunityGeneration, which each call
// reads (once per read scope) to tell whether it is current.
type residentCommunities struct {
	mu      sync.Mutex
	gen     string
	byLevel map[int][]graph.Community
}

// residentCommunitiesByLevel answers CommunitiesByLevel (level >= 0) from the copy, reading the
// level when the copy does not hold it or the generation moved on. The list is the caller's:
// the copy keeps its own.
func (s *Store) residentCommunitiesByLevel(ctx context.Context, level int) ([]graph.Community, error) {
	gen, err := s.generation(ctx, metaCommunityGeneration)
	if err != nil {
		return nil, fmt.Errorf("cypher: communities by level: %w", err)
	}
	c := &s.communities
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byLevel == nil || c.gen != gen {
		c.gen, c.byLevel = gen, map[int][]graph.Community{}
	}
	list, ok := c.byLevel[level]
	if !ok {
		if list, err = s.readCommunitiesByLevel(ctx, level); err != nil {
			return nil, err
		}
		c.byLevel[level] = list
	}
	return slices.Clone(list), nil
}
