package cypher

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/stratarag/strata/internal/graph"
)

// residentRelations is a resident store's copy of every RELATED relationship, for one generation
// of the entity graph. ExpandLocal's inside and outside relations, Relations (the chunks of hi's
// bridge paths) and the relations of Ancestors come from it: as statements, expand_local and
// read_relations took most of a served hi query's time on Neo4j after its searches.
type residentRelations struct {
	mu       sync.Mutex
	loaded   bool
	gen      string
	rels     []residentRelation
	byKey    map[graph.RelationKey]int32
	byEntity map[string][]int32 // the relations with the entity at either end
}

// residentRelation is a relation as read_every_relation returns it.
type residentRelation struct {
	graph.Relation
	// noWeight: stored without a weight, which Cypher's ORDER BY weight DESC puts first.
	noWeight bool
}

// relation returns the relation with a list of chunk ids of its own, which the caller may change.
func (r residentRelation) relation() graph.Relation {
	out := r.Relation
	out.ChunkIDs = slices.Clone(r.ChunkIDs)
	return out
}

// withRelations calls f with the copy of the relations, loading it first when the entity
// graph's generation moved on; f must not keep what it reads.
func (s *Store) withRelations(ctx context.Context, f func(rr *residentRelations)) error {
	gen, err := s.generation(ctx, metaEntityGraphGeneration)
	if err != nil {
		return err
	}
	rr := &s.relations
	rr.mu.Lock()
	defer rr.mu.Unlock()
	if !rr.loaded || rr.gen != gen {
		if err := s.loadRelations(ctx, rr); err != nil {
			return err
		}
	}
	f(rr)
	return nil
}

// loadRelations replaces the copy rr by the relationships read_every_relation reads, with their
// generation; the caller holds rr.mu.
func (s *Store) loadRelations(ctx context.Context, rr *residentRelations) error {
	start := time.Now()
	rows, err := s.readRows(ctx, qReadEveryRelation, map[string]any{"key": metaEntityGraphGeneration})
	if err != nil {
		return fmt.Errorf("load the relations: %w", err)
	}
	rels := make([]residentRelation, 0, len(rows))
	byKey := make(map[graph.RelationKey]int32, len(rows))
	byEntity := map[string][]int32{}
	gen := ""
	for i, row := range rows {
		f := fields{m: row}
		if i == 0 {
			gen = f.str("generation")
		}
		if row["source"] == nil {
			continue // no relationship at all: the one row carries the generation
		}
		r := residentRelation{
			Relation: graph.Relation{Source: f.str("source"), Target: f.str("target"), Description: f.str("description"),
				Weight: f.float("weight"), ChunkIDs: f.strs("chunkIds")},
			noWeight: row["weight"] == nil,
		}
		if f.err != nil {
			return fmt.Errorf("load the relations: %w", f.err)
		}
		n := int32(len(rels))
		rels = append(rels, r)
		byKey[graph.NewRelationKey(r.Source, r.Target)] = n
		byEntity[r.Source] = append(byEntity[r.Source], n)
		if r.Target != r.Source {
			byEntity[r.Target] = append(byEntity[r.Target], n)
		}
	}
	rr.loaded, rr.gen, rr.rels, rr.byKey, rr.byEntity = true, gen, rels, byKey, byEntity
	s.copyLoaded(qReadEveryRelation, len(rows), start)
	return nil
}

// residentRelationsByKey answers Relations from the copy: the relation of each key found, in
// the order of the keys (normalised, source < target, as stored).
func (s *Store) residentRelationsByKey(ctx context.Context, keys []graph.RelationKey) ([]graph.Relation, error) {
	var out []graph.Relation
	err := s.withRelations(ctx, func(rr *residentRelations) {
		for _, k := range keys {
			if i, ok := rr.byKey[graph.NewRelationKey(k.Source, k.Target)]; ok {
				out = append(out, rr.rels[i].relation())
			}
		}
	})
	return out, err
}

// byWeight orders relations as expand_local.cypher does: weight descending (none first), then
// source, then target.
func byWeight(a, b residentRelation) int {
	if a.noWeight != b.noWeight {
		if a.noWeight {
			return -1
		}
		return 1
	}
	return cmp.Or(cmp.Compare(b.Weight, a.Weight), strings.Compare(a.Source, b.Source), strings.Compare(a.Target, b.Target))
}

// residentLocalRelations returns expand_local.cypher's inside relations (both ends seeds, at
// most topInside) and outside relations (one end a seed, the other not asked for, at most
// topOutside) from the copy.
func (s *Store) residentLocalRelations(ctx context.Context, seeds, asked []string, topInside, topOutside int) (inside, outside []graph.Relation, err error) {
	isSeed := make(map[string]bool, len(seeds))
	for _, id := range seeds {
		isSeed[id] = true
	}
	wasAsked := make(map[string]bool, len(asked))
	for _, id := range asked {
		wasAsked[id] = true
	}
	inside, outside = []graph.Relation{}, []graph.Relation{}
	err = s.withRelations(ctx, func(rr *residentRelations) {
		var in, out []residentRelation
		for _, id := range seeds {
			for _, i := range rr.byEntity[id] {
				r := rr.rels[i]
				other := r.Target
				if other == id {
					other = r.Source
				}
				switch {
				case r.Source == id && isSeed[r.Target]:
					in = append(in, r)
				case !wasAsked[other]:
					out = append(out, r)
				}
			}
		}
		for _, part := range []struct {
			list []residentRelation
			top  int
			dst  *[]graph.Relation
		}{{in, topInside, &inside}, {out, topOutside, &outside}} {
			slices.SortFunc(part.list, byWeight)
			for _, r := range part.list[:min(len(part.list), max(part.top, 0))] {
				*part.dst = append(*part.dst, r.relation())
			}
		}
	})
	return inside, outside, err
}

// residentLocalCommunities returns expand_local.cypher's communities from the membership copy and
// the copy of every community record: those holding seeds, by the number of seeds they hold,
// then rating, then id; with distinct, only the first of those holding the same seeds; at most
// top.
func (s *Store) residentLocalCommunities(ctx context.Context, seeds []string, top int, distinct bool) ([]graph.ScoredCommunity, error) {
	out := []graph.ScoredCommunity{}
	if top <= 0 || len(seeds) == 0 {
		return out, nil
	}
	held := map[string][]string{} // community → the seeds it holds
	if err := s.withMembers(ctx, func(m *residentMembers) {
		for _, id := range seeds {
			for _, c := range m.byEntity[id] {
				held[c] = append(held[c], id)
			}
		}
	}); err != nil {
		return nil, err
	}
	records, err := s.residentCommunityRecords(ctx)
	if err != nil {
		return nil, err
	}
	ranked := make([]graph.ScoredCommunity, 0, len(held))
	for id, ss := range held {
		c, ok := records[id]
		if !ok {
			continue
		}
		slices.Sort(ss)
		ranked = append(ranked, graph.ScoredCommunity{Community: c, Score: float64(len(ss)), Seeds: ss})
	}
	slices.SortFunc(ranked, func(a, b graph.ScoredCommunity) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(b.Rating, a.Rating), strings.Compare(a.ID, b.ID))
	})
	seen := map[string]bool{}
	for _, c := range ranked {
		if len(out) == top {
			break
		}
		if distinct {
			key := strings.Join(c.Seeds, "\x00")
			if seen[key] {
				continue
			}
			seen[key] = true
		}
		out = append(out, c)
	}
	return out, nil
}
