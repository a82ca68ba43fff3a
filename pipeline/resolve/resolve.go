// Package resolve derives graph entities and relations from per-chunk evidence. What each
// chunk's extraction said about an entity (name, type, description) is kept on the chunk's
// mention of it, and what it said about a relation (description, strength) on the relation's
// evidence; an entity or relation is a function of all its evidence, merged in one fixed order
// (document id, then position in the document). A change to the corpus (new chunks, deleted
// chunks) re-derives only what it touches, and the graph after any sequence of adds, edits and
// deletes is the graph one ingest of the final corpus builds.
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

// ChunkResult is an extraction result with the chunk it came from and where the chunk sits.
type ChunkResult struct {
	ChunkID    string
	DocumentID string
	Seq        int
	Result     extract.Result
}

// Summarizer condenses the descriptions of one entity or relation into one text.
type Summarizer interface {
	Summarize(ctx context.Context, name string, descriptions []string) (string, error)
}

// Reader is the part of the store resolution reads.
type Reader interface {
	graph.EvidenceReader
	Entities(ctx context.Context, ids []string) ([]graph.Entity, error)
	Relations(ctx context.Context, keys []graph.RelationKey) ([]graph.Relation, error)
}

// Resolver derives entities and relations. Summarizer may be nil: descriptions are then
// condensed extractively (the earliest parts that fit the budget are kept). A Resolver is used
// by one goroutine at a time.
type Resolver struct {
	Store                Reader
	Tokenizer            *tokenizer.Tokenizer
	Summarizer           Summarizer
	MaxDescriptionTokens int // 500 when zero
	// Carry keeps, from one Resolve to the next, what deriving an entity or relation that many
	// chunks support needs beyond its stored properties (see carry.go), so that new evidence
	// placed after all of it is merged without reading all of it again: one huge document
	// written batch by batch then reads what each batch adds, not everything before it. The
	// result is the same. It assumes every Output is written before the next Resolve: a caller
	// that fails to write one must not use the Resolver again. Without a Tokenizer, or with a
	// Summarizer (whose summary depends on every description part) that is not deferred,
	// nothing is carried.
	Carry bool
	// Defer leaves the model merge of a description past the budget to Condense: Resolve
	// condenses it extractively, as offline, and lists the entity or relation in Output's
	// Deferred fields. A run adds evidence to a recurring name batch after batch, and merging
	// at every batch asked the model again for each: once per name at the end of the run is
	// enough, since what is stored between batches is read by nothing but the next batch.
	Defer bool

	counted map[string]int // tokens of description parts (countTokens)
	carried carried
}

// Output is what a change writes: the evidence of the new chunks (Mentions, and the Evidence
// of Relations), the entities whose name, type or description changed, every relation whose
// evidence changed, and the entities and relations left without evidence.
type Output struct {
	Entities        []graph.Entity
	Relations       []graph.Relation
	Mentions        []graph.Mention
	DeleteEntities  []string
	DeleteRelations []graph.RelationKey
	// DeferredEntities and DeferredRelations are those whose descriptions exceeded the budget
	// and were condensed extractively for Condense to merge with the model (Resolver.Defer).
	DeferredEntities  []string
	DeferredRelations []graph.RelationKey
}

// descriptionSep separates the merged descriptions of one entity or relation.
const descriptionSep = "\n"

// DefaultEntityType is given to entities a relation names but no entity record declares.
const DefaultEntityType = "other"

// Evidence turns the extraction results of chunks into their evidence: one mention per chunk
// and entity (relation endpoints included), one relation evidence per chunk and relation, in
// merge order. Within a chunk, an entity keeps the first name written, the type most often given
// and its distinct description parts; a relation sums its strengths (1 when none is given).
func Evidence(results []ChunkResult) ([]graph.Mention, []graph.RelationEvidence) {
	var mentions []graph.Mention
	var relations []graph.RelationEvidence
	for _, cr := range results {
		type entityAcc struct {
			name  string
			types map[string]int
			descs []string
		}
		entities := map[string]*entityAcc{}
		var order []string
		add := func(name, typ, desc string) string {
			id := graph.NormalizeID(name)
			if id == "" {
				return ""
			}
			acc, ok := entities[id]
			if !ok {
				acc = &entityAcc{name: strings.Join(strings.Fields(name), " "), types: map[string]int{}}
				entities[id] = acc
				order = append(order, id)
			}
			if typ = strings.ToLower(strings.TrimSpace(typ)); typ != "" {
				acc.types[typ]++
			}
			acc.descs = appendDistinct(acc.descs, splitDescription(desc)...)
			return id
		}
		type relationAcc struct {
			descs  []string
			weight float64
		}
		rels := map[graph.RelationKey]*relationAcc{}
		for _, e := range cr.Result.Entities {
			add(e.Name, e.Type, e.Description)
		}
		for _, rel := range cr.Result.Relations {
			src, dst := add(rel.Source, "", ""), add(rel.Target, "", "")
			if src == "" || dst == "" || src == dst {
				continue
			}
			key := graph.NewRelationKey(src, dst)
			acc, ok := rels[key]
			if !ok {
				acc = &relationAcc{}
				rels[key] = acc
			}
			strength := rel.Strength
			if strength <= 0 {
				strength = 1
			}
			acc.descs = appendDistinct(acc.descs, splitDescription(rel.Description)...)
			acc.weight += strength
		}
		for _, id := range order {
			acc := entities[id]
			mentions = append(mentions, graph.Mention{
				ChunkID: cr.ChunkID, EntityID: id, Name: acc.name, Type: majorityType(acc.types),
				Description: strings.Join(acc.descs, descriptionSep), DocumentID: cr.DocumentID, Seq: cr.Seq,
			})
		}
		for key, acc := range rels {
			relations = append(relations, graph.RelationEvidence{
				Source: key.Source, Target: key.Target, ChunkID: cr.ChunkID,
				Description: strings.Join(acc.descs, descriptionSep), Weight: acc.weight,
				DocumentID: cr.DocumentID, Seq: cr.Seq,
			})
		}
	}
	graph.SortMentions(mentions)
	graph.SortRelationEvidence(relations)
	return mentions, relations
}

// Resolve applies a change to the evidence: the chunks of results are added (or replace what
// they held), the chunks of deleted go. It re-derives every entity and relation the change
// touches from all the evidence left, and says which are left without any. An entity whose
// name, type or description changed loses its embedding so the embedding stage recomputes it;
// one that derives as stored is not written again.
func (r *Resolver) Resolve(ctx context.Context, results []ChunkResult, deleted []string) (Output, error) {
	var out Output
	newMentions, newRelations := Evidence(results)
	out.Mentions = newMentions

	// Evidence held by a chunk of the change is replaced (new chunks) or dropped (deleted ones).
	replaced := make(map[string]bool, len(results)+len(deleted))
	for _, cr := range results {
		replaced[cr.ChunkID] = true
	}
	for _, id := range deleted {
		replaced[id] = true
	}
	entityIDs := map[string]bool{}
	relationKeys := map[graph.RelationKey]bool{}
	for _, m := range newMentions {
		entityIDs[m.EntityID] = true
	}
	for _, ev := range newRelations {
		relationKeys[graph.NewRelationKey(ev.Source, ev.Target)] = true
	}
	if len(replaced) > 0 {
		// What the replaced chunks said before (a deleted chunk, or one extracted again).
		ids := make([]string, 0, len(replaced))
		for id := range replaced {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		oldMentions, oldRelations, err := r.Store.ChunkEvidence(ctx, ids)
		if err != nil {
			return Output{}, fmt.Errorf("read the evidence of replaced chunks: %w", err)
		}
		// What the replaced chunks held is no longer evidence: what was carried for it is
		// forgotten, and it is derived from the store again.
		for _, m := range oldMentions {
			entityIDs[m.EntityID] = true
			delete(r.carried.entities, m.EntityID)
		}
		for _, ev := range oldRelations {
			k := graph.NewRelationKey(ev.Source, ev.Target)
			relationKeys[k] = true
			delete(r.carried.relations, k)
		}
	}

	if err := r.deriveEntities(ctx, sortedSet(entityIDs), newMentions, replaced, &out); err != nil {
		return Output{}, err
	}
	keys := make([]graph.RelationKey, 0, len(relationKeys))
	for k := range relationKeys {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b graph.RelationKey) int {
		return strings.Compare(a.Source+"\x00"+a.Target, b.Source+"\x00"+b.Target)
	})
	if err := r.deriveRelations(ctx, keys, newRelations, replaced, &out); err != nil {
		return Output{}, err
	}
	return out, nil
}

func (r *Resolver) deriveEntities(ctx context.Context, ids []string, added []graph.Mention, replaced map[string]bool, out *Output) error {
	if len(ids) == 0 {
		return nil
	}
	entities, err := r.Store.Entities(ctx, ids)
	if err != nil {
		return fmt.Errorf("read entities to derive: %w", err)
	}
	storedByID := make(map[string]graph.Entity, len(entities))
	for _, e := range entities {
		storedByID[e.ID] = e
	}
	addedByEntity := map[string][]graph.Mention{}
	for _, m := range added {
		if !m.Subject {
			addedByEntity[m.EntityID] = append(addedByEntity[m.EntityID], m)
		}
	}
	// Entities carried from an earlier batch merge what this one adds; the others are derived
	// from all their evidence.
	carried := map[string]*entityState{}
	var read []string
	for _, id := range ids {
		st := r.carried.entities[id]
		_, exists := storedByID[id]
		if st != nil && exists && st.precedes(addedByEntity[id]) {
			carried[id] = st
			continue
		}
		delete(r.carried.entities, id)
		read = append(read, id)
	}
	byEntity := map[string][]graph.Mention{}
	if len(read) > 0 {
		stored, err := r.Store.EntityEvidence(ctx, read)
		if err != nil {
			return fmt.Errorf("read entity evidence: %w", err)
		}
		all := slices.DeleteFunc(stored, func(m graph.Mention) bool { return replaced[m.ChunkID] })
		for _, m := range added {
			if carried[m.EntityID] == nil {
				all = append(all, m)
			}
		}
		graph.SortMentions(all)
		for _, m := range all {
			if !m.Subject {
				byEntity[m.EntityID] = append(byEntity[m.EntityID], m)
			}
		}
	}
	for _, id := range ids {
		e, exists := storedByID[id]
		var derived graph.Entity
		if st := carried[id]; st != nil {
			if derived, err = r.mergeEntity(ctx, st, e, addedByEntity[id]); err != nil {
				return err
			}
			if st.full && r.defers() {
				out.DeferredEntities = append(out.DeferredEntities, id)
			}
		} else {
			evidence := byEntity[id]
			if len(evidence) == 0 {
				if exists {
					out.DeleteEntities = append(out.DeleteEntities, id)
				}
				continue
			}
			var full bool
			if derived, full, err = r.deriveEntity(ctx, id, evidence); err != nil {
				return err
			}
			if full && r.defers() {
				out.DeferredEntities = append(out.DeferredEntities, id)
			}
			r.carryEntity(id, evidence, full)
		}
		if exists && derived.Name == e.Name && derived.Type == e.Type && derived.Description == e.Description {
			continue
		}
		if exists {
			derived.ComponentID, derived.Degree = e.ComponentID, e.Degree
		}
		out.Entities = append(out.Entities, derived)
	}
	return nil
}

// deriveEntity merges an entity's evidence, in merge order: the first name, the type most
// chunks give, the distinct description parts condensed to the budget.
// full reports that the description parts exceeded the budget (see condense).
func (r *Resolver) deriveEntity(ctx context.Context, id string, evidence []graph.Mention) (e graph.Entity, full bool, err error) {
	e = graph.Entity{ID: id, ComponentID: -1}
	types := map[string]int{}
	var parts []string
	for _, m := range evidence {
		if e.Name == "" {
			e.Name = m.Name
		}
		if m.Type != "" {
			types[m.Type]++
		}
		parts = appendDistinct(parts, splitDescription(m.Description)...)
	}
	if e.Name == "" {
		e.Name = id
	}
	if e.Type = majorityType(types); e.Type == "" {
		e.Type = DefaultEntityType
	}
	if e.Description, full, err = r.condense(ctx, e.Name, parts); err != nil {
		return graph.Entity{}, false, err
	}
	return e, full, nil
}

func (r *Resolver) deriveRelations(ctx context.Context, keys []graph.RelationKey, added []graph.RelationEvidence, replaced map[string]bool, out *Output) error {
	if len(keys) == 0 {
		return nil
	}
	addedByKey := map[graph.RelationKey][]graph.RelationEvidence{}
	for _, ev := range added {
		k := graph.NewRelationKey(ev.Source, ev.Target)
		addedByKey[k] = append(addedByKey[k], ev)
	}
	// Relations carried from an earlier batch merge what this one adds into their stored
	// properties; the others are derived from all their evidence.
	var candidates []graph.RelationKey
	for _, k := range keys {
		if st := r.carried.relations[k]; st != nil && st.precedes(addedByKey[k]) {
			candidates = append(candidates, k)
		} else {
			delete(r.carried.relations, k)
		}
	}
	storedByKey := map[graph.RelationKey]graph.Relation{}
	if len(candidates) > 0 {
		stored, err := r.Store.Relations(ctx, candidates)
		if err != nil {
			return fmt.Errorf("read relations to derive: %w", err)
		}
		for _, rel := range stored {
			storedByKey[graph.NewRelationKey(rel.Source, rel.Target)] = rel
		}
	}
	var read []graph.RelationKey
	for _, k := range keys {
		if _, ok := storedByKey[k]; !ok {
			delete(r.carried.relations, k)
			read = append(read, k)
		}
	}
	byKey := map[graph.RelationKey][]graph.RelationEvidence{}
	if len(read) > 0 {
		stored, err := r.Store.RelationEvidence(ctx, read)
		if err != nil {
			return fmt.Errorf("read relation evidence: %w", err)
		}
		all := slices.DeleteFunc(stored, func(ev graph.RelationEvidence) bool { return replaced[ev.ChunkID] })
		for _, ev := range added {
			if _, ok := storedByKey[graph.NewRelationKey(ev.Source, ev.Target)]; !ok {
				all = append(all, ev)
			}
		}
		graph.SortRelationEvidence(all)
		for _, ev := range all {
			k := graph.NewRelationKey(ev.Source, ev.Target)
			byKey[k] = append(byKey[k], ev)
		}
	}
	for _, key := range keys {
		if stored, ok := storedByKey[key]; ok {
			st := r.carried.relations[key]
			rel, err := r.mergeRelation(ctx, st, stored, addedByKey[key])
			if err != nil {
				return err
			}
			if st.full && r.defers() {
				out.DeferredRelations = append(out.DeferredRelations, key)
			}
			out.Relations = append(out.Relations, rel)
			continue
		}
		evidence := byKey[key]
		if len(evidence) == 0 {
			// Only a stored relation's own evidence, now dropped, can name a key that has none
			// left: the relation is stored, and goes.
			out.DeleteRelations = append(out.DeleteRelations, key)
			continue
		}
		rel := graph.Relation{Source: key.Source, Target: key.Target, Evidence: evidence}
		var parts []string
		for _, ev := range evidence {
			rel.Weight += ev.Weight
			rel.ChunkIDs = append(rel.ChunkIDs, ev.ChunkID)
			parts = appendDistinct(parts, splitDescription(ev.Description)...)
		}
		sort.Strings(rel.ChunkIDs)
		desc, full, err := r.condense(ctx, relationName(key), parts)
		if err != nil {
			return err
		}
		rel.Description = desc
		if full && r.defers() {
			out.DeferredRelations = append(out.DeferredRelations, key)
		}
		r.carryRelation(key, evidence, full)
		out.Relations = append(out.Relations, rel)
	}
	return nil
}

// relationName is what a relation's description is summarized under.
func relationName(k graph.RelationKey) string { return k.Source + " – " + k.Target }

func sortedSet(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// condense joins description parts, and shortens them when they exceed the token budget. The
// size of a description is the sum of its parts' tokens and one per separator: a function of
// the parts alone, counted once per part (see countTokens). full reports that the parts exceed
// the budget: then, extractively, more parts after them cannot change the description.
func (r *Resolver) condense(ctx context.Context, name string, parts []string) (desc string, full bool, err error) {
	limit := r.MaxDescriptionTokens
	if limit <= 0 {
		limit = 500
	}
	joined := strings.Join(parts, descriptionSep)
	// A token is at least one byte: a text of at most limit bytes is within the budget.
	if r.Tokenizer == nil || len(joined) <= limit {
		return joined, false, nil
	}
	counts := make([]int, len(parts))
	total := -1
	for i, p := range parts {
		counts[i] = r.countTokens(p) + 1
		total += counts[i]
	}
	if total <= limit {
		return joined, false, nil
	}
	if r.Summarizer != nil && !r.Defer {
		s, err := r.Summarizer.Summarize(ctx, name, parts)
		if err != nil {
			return "", true, fmt.Errorf("summarize description of %s: %w", name, err)
		}
		return strings.TrimSpace(s), true, nil
	}
	var kept []string
	used := 0
	for i, p := range parts {
		if used+counts[i] > limit {
			break
		}
		kept = append(kept, p)
		used += counts[i]
	}
	if len(kept) == 0 {
		kept = parts[:1]
	}
	return strings.Join(kept, descriptionSep), true, nil
}

// maxCountedParts bounds the memory of countTokens: past it, the counts start over.
const maxCountedParts = 1 << 17

// countTokens counts the tokens of a description part. An entity that many chunks mention is
// derived again at every change that touches it, from the same parts: their counts are kept.
func (r *Resolver) countTokens(part string) int {
	if n, ok := r.counted[part]; ok {
		return n
	}
	if r.counted == nil || len(r.counted) >= maxCountedParts {
		r.counted = make(map[string]int)
	}
	n := r.Tokenizer.Count(part)
	// A part is a piece of a description read from the store or extracted: cloned, the key
	// does not keep the whole description alive.
	r.counted[strings.Clone(part)] = n
	return n
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

// Condense merges with the Summarizer the descriptions Resolve deferred (Output's Deferred
// fields): each entity and relation is derived again from all its evidence, as Resolve without
// Defer derives it. It returns what changed; one gone since it was deferred is left out, since
// the change that removed it deleted it. What was carried is forgotten: the stored
// descriptions are no longer the extractive ones it was carried with.
func (r *Resolver) Condense(ctx context.Context, ids []string, keys []graph.RelationKey) (Output, error) {
	r.carried = carried{}
	x := &Resolver{Store: r.Store, Tokenizer: r.Tokenizer, Summarizer: r.Summarizer,
		MaxDescriptionTokens: r.MaxDescriptionTokens, counted: r.counted}
	var out Output
	if err := x.deriveEntities(ctx, ids, nil, nil, &out); err != nil {
		return Output{}, err
	}
	if err := x.deriveRelations(ctx, keys, nil, nil, &out); err != nil {
		return Output{}, err
	}
	r.counted = x.counted
	out.DeleteEntities, out.DeleteRelations = nil, nil
	return out, nil
}
