package resolve

import (
	"cmp"
	"context"
	"slices"

	"github.com/stratarag/strata/internal/graph"
)

// What Resolver.Carry keeps between two calls of Resolve.
//
// An entity or relation is a fold of its evidence in merge order (document id, Seq, chunk id).
// When all the evidence a change adds comes after all the evidence stored for it, and the change
// drops none of it, the fold over everything is the fold over what is stored continued over what
// is added. The stored entity or relation already holds most of what the fold needs: the name
// (the first one given), the summed weight and the chunks of a relation, and the description,
// which is either all the distinct parts so far joined (the parts are then split from it again)
// or, once the parts exceeded the budget, the earliest ones that fit, which parts coming after
// cannot change (condense). What it does not hold is carried: where the last evidence sits, the
// types given and how often (an entity's type is the most frequent), and whether the description
// is full. That is a few dozen bytes per entity or relation, against the evidence of every chunk
// that supports it: a name that recurs through a huge document gains evidence with every batch,
// and reading all of it again at every batch grows with the square of the document.
//
// Only what at least minCarried chunks support is carried (what fewer support is cheap to read
// again), and at most maxCarried entities and as many relations: past that the carried ones are
// forgotten and derived from the store once more.
const (
	minCarried = 4
	maxCarried = 1 << 18
)

type carried struct {
	entities  map[string]*entityState
	relations map[graph.RelationKey]*relationState
}

// place is where a piece of evidence sits in merge order.
type place struct {
	documentID string
	seq        int
	chunkID    string
}

func (p place) compare(q place) int {
	return cmp.Or(cmp.Compare(p.documentID, q.documentID), cmp.Compare(p.seq, q.seq), cmp.Compare(p.chunkID, q.chunkID))
}

type entityState struct {
	last  place       // of the last evidence merged
	name  string      // the first name given ("" when none was)
	types []typeCount // the types given, and by how many chunks: a few, so a slice, not a map
	full  bool        // the description parts exceeded the budget
}

type typeCount struct {
	typ string
	n   int
}

type relationState struct {
	last place
	full bool
}

// precedes reports whether every mention of added comes after all the evidence st merged.
func (st *entityState) precedes(added []graph.Mention) bool {
	for _, m := range added {
		if st.last.compare(place{m.DocumentID, m.Seq, m.ChunkID}) >= 0 {
			return false
		}
	}
	return true
}

func (st *relationState) precedes(added []graph.RelationEvidence) bool {
	for _, ev := range added {
		if st.last.compare(place{ev.DocumentID, ev.Seq, ev.ChunkID}) >= 0 {
			return false
		}
	}
	return true
}

// carries reports whether the Resolver carries anything: descriptions summarized by a model
// depend on every part, which only the evidence holds (deferred ones are extractive until
// Condense).
func (r *Resolver) carries() bool {
	return r.Carry && r.Tokenizer != nil && (r.Summarizer == nil || r.Defer)
}

// defers reports whether descriptions past the budget are left to Condense.
func (r *Resolver) defers() bool { return r.Defer && r.Summarizer != nil }

// carryEntity records what an entity derived from all its evidence needs to merge more.
func (r *Resolver) carryEntity(id string, evidence []graph.Mention, full bool) {
	if !r.carries() || len(evidence) < minCarried {
		return
	}
	if r.carried.entities == nil || len(r.carried.entities) >= maxCarried {
		r.carried.entities = map[string]*entityState{}
	}
	st := &entityState{full: full}
	for _, m := range evidence {
		st.note(m)
	}
	r.carried.entities[id] = st
}

func (st *entityState) note(m graph.Mention) {
	if st.name == "" {
		st.name = m.Name
	}
	if m.Type != "" {
		i := slices.IndexFunc(st.types, func(tc typeCount) bool { return tc.typ == m.Type })
		if i < 0 {
			st.types = append(st.types, typeCount{typ: m.Type})
			i = len(st.types) - 1
		}
		st.types[i].n++
	}
	st.last = place{m.DocumentID, m.Seq, m.ChunkID}
}

// carryRelation records what a relation derived from all its evidence needs to merge more.
func (r *Resolver) carryRelation(key graph.RelationKey, evidence []graph.RelationEvidence, full bool) {
	if !r.carries() || len(evidence) < minCarried {
		return
	}
	if r.carried.relations == nil || len(r.carried.relations) >= maxCarried {
		r.carried.relations = map[graph.RelationKey]*relationState{}
	}
	last := evidence[len(evidence)-1]
	r.carried.relations[key] = &relationState{last: place{last.DocumentID, last.Seq, last.ChunkID}, full: full}
}

// mergeEntity derives a carried entity, stored as stored, with the mentions added after its
// evidence (in merge order), as deriveEntity would from all of it, and carries the result on.
func (r *Resolver) mergeEntity(ctx context.Context, st *entityState, stored graph.Entity, added []graph.Mention) (graph.Entity, error) {
	e := graph.Entity{ID: stored.ID, ComponentID: -1}
	for _, m := range added {
		st.note(m)
	}
	if e.Name = st.name; e.Name == "" {
		e.Name = e.ID
	}
	types := make(map[string]int, len(st.types))
	for _, tc := range st.types {
		types[tc.typ] = tc.n
	}
	if e.Type = majorityType(types); e.Type == "" {
		e.Type = DefaultEntityType
	}
	desc, full, err := r.extend(ctx, e.Name, stored.Description, st.full, func(yield func(string) bool) {
		for _, m := range added {
			if !yield(m.Description) {
				return
			}
		}
	})
	if err != nil {
		return graph.Entity{}, err
	}
	e.Description, st.full = desc, full
	return e, nil
}

// mergeRelation derives a carried relation, stored as stored, with the evidence added after its
// evidence: the stored weight continued over the added strengths, the chunks merged, the
// description extended. The relation is written with AddEvidence: only what was added.
func (r *Resolver) mergeRelation(ctx context.Context, st *relationState, stored graph.Relation, added []graph.RelationEvidence) (graph.Relation, error) {
	// stored was read for this call alone: its chunk list is extended in place.
	rel := graph.Relation{Source: stored.Source, Target: stored.Target, Weight: stored.Weight, ChunkIDs: stored.ChunkIDs,
		Evidence: added, AddEvidence: true}
	for _, ev := range added {
		rel.Weight += ev.Weight
		rel.ChunkIDs = append(rel.ChunkIDs, ev.ChunkID)
		st.last = place{ev.DocumentID, ev.Seq, ev.ChunkID}
	}
	slices.Sort(rel.ChunkIDs)
	desc, full, err := r.extend(ctx, relationName(rel.Key()), stored.Description, st.full, func(yield func(string) bool) {
		for _, ev := range added {
			if !yield(ev.Description) {
				return
			}
		}
	})
	if err != nil {
		return graph.Relation{}, err
	}
	rel.Description, st.full = desc, full
	return rel, nil
}

// extend returns the description that condense gives the parts of desc followed by the distinct
// new parts of added, when desc is what condense gave the earlier parts and full what it
// reported. A full description stays as it is; one that is not is all the earlier parts joined.
func (r *Resolver) extend(ctx context.Context, name, desc string, full bool, added func(yield func(string) bool)) (string, bool, error) {
	if full {
		return desc, true, nil
	}
	parts := splitDescription(desc)
	for d := range added {
		parts = appendDistinct(parts, splitDescription(d)...)
	}
	return r.condense(ctx, name, parts)
}
