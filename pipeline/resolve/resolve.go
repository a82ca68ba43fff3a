// Package resolve merges what extractors found in many chunks into graph entities and relations:
// entities by normalized id, descriptions merged (and condensed when they grow long), relation
// weights added up. It merges with what the store already holds, so ingesting documents one run
// at a time gives the same graph as ingesting them together.
package resolve

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/tokenizer"
	"github.com/stratarag/strata/pipeline/extract"
)

// ChunkResult is an extraction result with the chunk it came from.
type ChunkResult struct {
	ChunkID string
	Result  extract.Result
}

// Summarizer condenses the descriptions of one entity or relation into one text.
type Summarizer interface {
	Summarize(ctx context.Context, name string, descriptions []string) (string, error)
}

// Reader is the part of the store resolution reads.
type Reader interface {
	Entities(ctx context.Context, ids []string) ([]graph.Entity, error)
	Relations(ctx context.Context, keys []graph.RelationKey) ([]graph.Relation, error)
}

// Resolver merges extraction results. Summarizer may be nil: descriptions are then condensed
// extractively (the earliest parts that fit the budget are kept).
type Resolver struct {
	Store                Reader
	Tokenizer            *tokenizer.Tokenizer
	Summarizer           Summarizer
	MaxDescriptionTokens int // 500 when zero
}

// Output is what resolution writes: full entities and relations (already merged with the stored
// ones) and the chunk→entity mentions.
type Output struct {
	Entities  []graph.Entity
	Relations []graph.Relation
	Mentions  []graph.Mention
}

// descriptionSep separates the merged descriptions of one entity or relation.
const descriptionSep = "\n"

// DefaultEntityType is given to entities a relation names but no entity record declares.
const DefaultEntityType = "other"

type entityAcc struct {
	name  string
	types map[string]int
	descs []string
}

type relationAcc struct {
	descs    []string
	weight   float64
	chunkIDs []string
}

// Resolve merges the results, reads the stored versions of every touched entity and relation, and
// returns the merged versions. An entity whose description changed loses its embedding so the
// embedding stage recomputes it. Relations whose chunk is already recorded on the stored relation
// are not counted again, which keeps re-processing a chunk idempotent.
func (r *Resolver) Resolve(ctx context.Context, results []ChunkResult) (Output, error) {
	entities := map[string]*entityAcc{}
	var entityOrder []string
	mentions := map[graph.Mention]bool{}
	var out Output
	addEntity := func(chunkID, name, typ, desc string) string {
		id := graph.NormalizeID(name)
		if id == "" {
			return ""
		}
		acc, ok := entities[id]
		if !ok {
			acc = &entityAcc{name: strings.Join(strings.Fields(name), " "), types: map[string]int{}}
			entities[id] = acc
			entityOrder = append(entityOrder, id)
		}
		if typ = strings.ToLower(strings.TrimSpace(typ)); typ != "" {
			acc.types[typ]++
		}
		acc.descs = appendDistinct(acc.descs, splitDescription(desc)...)
		m := graph.Mention{ChunkID: chunkID, EntityID: id}
		if !mentions[m] {
			mentions[m] = true
			out.Mentions = append(out.Mentions, m)
		}
		return id
	}

	relations := map[graph.RelationKey]*relationAcc{}
	var relationOrder []graph.RelationKey
	for _, cr := range results {
		for _, e := range cr.Result.Entities {
			addEntity(cr.ChunkID, e.Name, e.Type, e.Description)
		}
		for _, rel := range cr.Result.Relations {
			src := addEntity(cr.ChunkID, rel.Source, "", "")
			dst := addEntity(cr.ChunkID, rel.Target, "", "")
			if src == "" || dst == "" || src == dst {
				continue
			}
			key := graph.NewRelationKey(src, dst)
			acc, ok := relations[key]
			if !ok {
				acc = &relationAcc{}
				relations[key] = acc
				relationOrder = append(relationOrder, key)
			}
			strength := rel.Strength
			if strength <= 0 {
				strength = 1
			}
			acc.descs = appendDistinct(acc.descs, splitDescription(rel.Description)...)
			if !slices.Contains(acc.chunkIDs, cr.ChunkID) {
				acc.chunkIDs = append(acc.chunkIDs, cr.ChunkID)
			}
			acc.weight += strength
		}
	}

	stored, err := r.Store.Entities(ctx, entityOrder)
	if err != nil {
		return Output{}, fmt.Errorf("read entities to merge: %w", err)
	}
	storedByID := make(map[string]graph.Entity, len(stored))
	for _, e := range stored {
		storedByID[e.ID] = e
	}
	for _, id := range entityOrder {
		e, err := r.mergeEntity(ctx, id, entities[id], storedByID)
		if err != nil {
			return Output{}, err
		}
		if e != nil {
			out.Entities = append(out.Entities, *e)
		}
	}

	storedRels, err := r.Store.Relations(ctx, relationOrder)
	if err != nil {
		return Output{}, fmt.Errorf("read relations to merge: %w", err)
	}
	storedRelByKey := make(map[graph.RelationKey]graph.Relation, len(storedRels))
	for _, rel := range storedRels {
		storedRelByKey[rel.Key()] = rel
	}
	for _, key := range relationOrder {
		rel, err := r.mergeRelation(ctx, key, relations[key], storedRelByKey)
		if err != nil {
			return Output{}, err
		}
		if rel != nil {
			out.Relations = append(out.Relations, *rel)
		}
	}
	return out, nil
}

// mergeEntity returns the merged entity, or nil when the stored one already says everything.
func (r *Resolver) mergeEntity(ctx context.Context, id string, acc *entityAcc, stored map[string]graph.Entity) (*graph.Entity, error) {
	e, exists := stored[id]
	if !exists {
		e = graph.Entity{ID: id, Name: acc.name, ComponentID: -1}
	}
	newType := majorityType(acc.types)
	typeChanged := false
	if (e.Type == "" || e.Type == DefaultEntityType) && newType != "" && newType != e.Type {
		e.Type = newType
		typeChanged = true
	}
	if e.Type == "" {
		e.Type = DefaultEntityType
	}
	parts := splitDescription(e.Description)
	merged := appendDistinct(slices.Clone(parts), acc.descs...)
	descChanged := len(merged) != len(parts)
	if exists && !descChanged && !typeChanged {
		return nil, nil
	}
	if descChanged || !exists {
		desc, err := r.condense(ctx, e.Name, merged)
		if err != nil {
			return nil, err
		}
		if exists && desc == e.Description && !typeChanged {
			// A description at its token budget, condensed extractively, keeps its first parts:
			// the new ones fell off, and the stored entity (and its embedding) stays as it is.
			return nil, nil
		}
		e.Description = desc
		e.Embedding = nil
	}
	return &e, nil
}

func (r *Resolver) mergeRelation(ctx context.Context, key graph.RelationKey, acc *relationAcc, stored map[graph.RelationKey]graph.Relation) (*graph.Relation, error) {
	rel, exists := stored[key]
	if !exists {
		rel = graph.Relation{Source: key.Source, Target: key.Target}
	}
	var fresh []string
	for _, c := range acc.chunkIDs {
		if !slices.Contains(rel.ChunkIDs, c) {
			fresh = append(fresh, c)
		}
	}
	if exists && len(fresh) == 0 {
		return nil, nil
	}
	// Weight from chunks the relation already records was counted when they were first resolved.
	share := acc.weight * float64(len(fresh)) / float64(len(acc.chunkIDs))
	rel.Weight += share
	rel.ChunkIDs = append(rel.ChunkIDs, fresh...)
	sort.Strings(rel.ChunkIDs)
	merged := appendDistinct(splitDescription(rel.Description), acc.descs...)
	desc, err := r.condense(ctx, key.Source+" – "+key.Target, merged)
	if err != nil {
		return nil, err
	}
	rel.Description = desc
	return &rel, nil
}

// condense joins description parts, and shortens them when they exceed the token budget.
func (r *Resolver) condense(ctx context.Context, name string, parts []string) (string, error) {
	limit := r.MaxDescriptionTokens
	if limit <= 0 {
		limit = 500
	}
	joined := strings.Join(parts, descriptionSep)
	if r.Tokenizer == nil || r.Tokenizer.Count(joined) <= limit {
		return joined, nil
	}
	if r.Summarizer != nil {
		s, err := r.Summarizer.Summarize(ctx, name, parts)
		if err != nil {
			return "", fmt.Errorf("summarize description of %s: %w", name, err)
		}
		return strings.TrimSpace(s), nil
	}
	var kept []string
	used := 0
	for _, p := range parts {
		n := r.Tokenizer.Count(p) + 1
		if used+n > limit {
			break
		}
		kept = append(kept, p)
		used += n
	}
	if len(kept) == 0 {
		kept = parts[:1]
	}
	return strings.Join(kept, descriptionSep), nil
}

func splitDescription(d string) []string {
	var parts []string
	for _, p := range strings.Split(d, descriptionSep) {
		if p = strings.TrimSpace(p); p != "" {
			parts = append(parts, p)
		}
	}
	return parts
}

func appendDistinct(list []string, items ...string) []string {
	for _, it := range items {
		if it != "" && !slices.Contains(list, it) {
			list = append(list, it)
		}
	}
	return list
}

// majorityType picks the most frequent type, ignoring the fallback type unless it is all there
// is; ties go to the alphabetically first so the result is deterministic.
func majorityType(types map[string]int) string {
	best, bestN := "", 0
	for t, n := range types {
		if t == DefaultEntityType {
			continue
		}
		if n > bestN || (n == bestN && t < best) {
			best, bestN = t, n
		}
	}
	if best == "" && types[DefaultEntityType] > 0 {
		return DefaultEntityType
	}
	return best
}
