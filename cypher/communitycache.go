package cypher

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

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
	byID    map[string]graph.Community // every level's (byLevel[-1]) by id, once asked for
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
	list, err := s.communityLevel(ctx, c, gen, level)
	return slices.Clone(list), err
}

// communityLevel returns the copy's list of level (every level when < 0) for generation gen,
// reading it when the copy does not hold it; the caller holds c.mu.
func (s *Store) communityLevel(ctx context.Context, c *residentCommunities, gen string, level int) ([]graph.Community, error) {
	if c.byLevel == nil || c.gen != gen {
		c.gen, c.byLevel, c.byID = gen, map[int][]graph.Community{}, nil
	}
	list, ok := c.byLevel[level]
	if !ok {
		var err error
		if list, err = s.readCommunitiesByLevel(ctx, level); err != nil {
			return nil, err
		}
		c.byLevel[level] = list
	}
	return list, nil
}

// residentCommunityRecords returns every community by id from the copy, reading them all when
// the copy does not hold them or the generation moved on. The map is the copy's: the caller
// must not change it.
func (s *Store) residentCommunityRecords(ctx context.Context) (map[string]graph.Community, error) {
	gen, err := s.generation(ctx, metaCommunityGeneration)
	if err != nil {
		return nil, fmt.Errorf("cypher: communities: %w", err)
	}
	c := &s.communities
	c.mu.Lock()
	defer c.mu.Unlock()
	list, err := s.communityLevel(ctx, c, gen, -1)
	if err != nil {
		return nil, err
	}
	if c.byID == nil {
		c.byID = make(map[string]graph.Community, len(list))
		for _, com := range list {
			c.byID[com.ID] = com
		}
	}
	return c.byID, nil
}

// residentMembers is a resident store's copy of every community's member entity ids, sorted, for
// one generation of the communities and one of the entity graph (a removed entity leaves its
// communities). hi mode asks for the members of the communities on its bridge paths, global
// mode for those of the communities it keeps, hundreds of records per query on Neo4j.
type residentMembers struct {
	mu                   sync.Mutex
	loaded               bool
	communityGen, entGen string
	byCommunity          map[string][]string
	byEntity             map[string][]string // the communities of each entity, every level
}

// residentEntities bounds a resident store's copy of the entity records it read (without
// embeddings, a few hundred bytes each): global mode reads hundreds per query.
const residentEntities = 50000

// withMembers calls f with the membership copy, loading it first when a generation moved on;
// f must not keep what it reads.
func (s *Store) withMembers(ctx context.Context, f func(m *residentMembers)) error {
	vals, err := s.generations(ctx)
	if err != nil {
		return err
	}
	commGen, entGen := vals[metaCommunityGeneration], vals[metaEntityGraphGeneration]
	m := &s.members
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.loaded || m.communityGen != commGen || m.entGen != entGen {
		if err := s.loadMembers(ctx, m, commGen, entGen); err != nil {
			return err
		}
	}
	f(m)
	return nil
}

// residentCommunityEntities answers CommunityEntities from the membership copy and the entity
// records read through the store's record copy.
func (s *Store) residentCommunityEntities(ctx context.Context, ids []string) (map[string][]graph.Entity, error) {
	members := make(map[string][]string, len(ids))
	var all []string
	if err := s.withMembers(ctx, func(m *residentMembers) {
		for _, id := range ids {
			if list := m.byCommunity[id]; len(list) > 0 {
				members[id] = list
				all = append(all, list...)
			}
		}
	}); err != nil {
		return nil, err
	}
	records, err := s.cachedEntityTexts(ctx, graph.UniqueIDs(all))
	if err != nil {
		return nil, err
	}
	byID := make(map[string]graph.Entity, len(records))
	for _, e := range records {
		byID[e.ID] = e
	}
	out := make(map[string][]graph.Entity, len(members))
	for c, list := range members {
		for _, id := range list {
			if e, ok := byID[id]; ok {
				out[c] = append(out[c], e)
			}
		}
	}
	return out, nil
}

// loadMembers replaces the copy m by the memberships read_community_membership returns, with the
// generations they belong to (those asked for when there is no membership to read them with);
// the caller holds m.mu.
func (s *Store) loadMembers(ctx context.Context, m *residentMembers, commGen, entGen string) error {
	start := time.Now()
	rows, err := s.readRows(ctx, qReadCommunityMembership, map[string]any{
		"communityKey": metaCommunityGeneration, "entityKey": metaEntityGraphGeneration,
	})
	if err != nil {
		return fmt.Errorf("load the community memberships: %w", err)
	}
	m.loaded, m.communityGen, m.entGen = false, commGen, entGen
	m.byCommunity, m.byEntity = map[string][]string{}, map[string][]string{}
	for i, row := range rows {
		f := fields{m: row}
		if i == 0 {
			m.communityGen, m.entGen = f.str("communityGeneration"), f.str("entityGeneration")
		}
		c, e := f.str("community"), f.str("entity")
		if f.err != nil {
			return fmt.Errorf("load the community memberships: %w", f.err)
		}
		m.byCommunity[c] = append(m.byCommunity[c], e)
		m.byEntity[e] = append(m.byEntity[e], c)
	}
	m.loaded = true
	s.copyLoaded(qReadCommunityMembership, len(rows), start)
	return nil
}
