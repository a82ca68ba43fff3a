package pipeline

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/pipeline/resolve"
)

// deferredDescriptions are the entities and relations whose descriptions a run left for the
// model to merge once, at the end of its documents stage (resolve.Resolver.Defer). The list is
// written with every batch, in the batch's transaction, so that a run killed before the merge
// leaves it to the next run, which merges it whatever documents it finds changed.
type deferredDescriptions struct {
	entities  map[string]bool
	relations map[string]bool // "SOURCE\tTARGET"
}

func readDeferred(ctx context.Context, store graph.MetaReader) (*deferredDescriptions, error) {
	vals, err := graph.MetaValues(ctx, store, graph.MetaDescriptionsDeferred, graph.MetaDescriptionsDeferredRelations)
	if err != nil {
		return nil, err
	}
	d := &deferredDescriptions{entities: map[string]bool{}, relations: map[string]bool{}}
	for _, id := range splitLines(vals[graph.MetaDescriptionsDeferred]) {
		d.entities[id] = true
	}
	for _, k := range splitLines(vals[graph.MetaDescriptionsDeferredRelations]) {
		d.relations[k] = true
	}
	return d, nil
}

// record adds what a Resolve deferred to the list and the list to the batch's meta (the batch's
// Meta must be its own map). A nil list records nothing: the run merges as it goes.
func (d *deferredDescriptions) record(out resolve.Output, b *graph.Batch) {
	if d == nil || len(out.DeferredEntities)+len(out.DeferredRelations) == 0 {
		return
	}
	for _, id := range out.DeferredEntities {
		d.entities[id] = true
	}
	for _, k := range out.DeferredRelations {
		d.relations[k.Source+"\t"+k.Target] = true
	}
	d.meta(b.Meta)
}

func (d *deferredDescriptions) meta(m map[string]string) {
	m[graph.MetaDescriptionsDeferred] = joinLines(d.entities)
	m[graph.MetaDescriptionsDeferredRelations] = joinLines(d.relations)
}

// condensePage is how many deferred entities or relations are merged and written per
// transaction: a killed run loses at most a page of answers, which the cache keeps.
const condensePage = 256

// condenseDeferred merges the deferred descriptions with the model, a page at a time, each
// page written with what is left of the list.
func (in *Ingester) condenseDeferred(ctx context.Context, resolver *resolve.Resolver, d *deferredDescriptions) error {
	if d == nil {
		return nil
	}
	ids := slices.Sorted(maps.Keys(d.entities))
	keys := slices.Sorted(maps.Keys(d.relations))
	for len(ids)+len(keys) > 0 {
		page := ids[:min(len(ids), condensePage)]
		rels := keys[:min(len(keys), condensePage-len(page))]
		relKeys := make([]graph.RelationKey, len(rels))
		for i, k := range rels {
			src, tgt, _ := strings.Cut(k, "\t")
			relKeys[i] = graph.RelationKey{Source: src, Target: tgt}
		}
		out, err := resolver.Condense(ctx, page, relKeys)
		if err != nil {
			return fmt.Errorf("merge descriptions: %w", err)
		}
		for _, id := range page {
			delete(d.entities, id)
		}
		for _, k := range rels {
			delete(d.relations, k)
		}
		ids, keys = ids[len(page):], keys[len(rels):]
		b := graph.Batch{Entities: out.Entities, Relations: out.Relations, Meta: map[string]string{}}
		d.meta(b.Meta)
		if len(b.Entities)+len(b.Relations) > 0 {
			if err := in.changes.record(ctx, in.Store, &b); err != nil {
				return fmt.Errorf("write merged descriptions: %w", err)
			}
		}
		if err := in.Store.Apply(ctx, b); err != nil {
			return fmt.Errorf("write merged descriptions: %w", err)
		}
	}
	return nil
}
