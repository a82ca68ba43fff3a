package pipeline

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/stratarag/strata/internal/graph"
)

// entityPage is how many entities embedEntities reads at a time: the stage holds one page and
// one batch to embed, whatever the size of the graph.
const entityPage = 2048

// embedWriteBatch is how many embedded entities embedEntities writes in one transaction. Every
// transaction updates the full-text and vector indexes once (on Neo4j, Lucene commits), so
// writing each batch of Options.EmbedBatch texts on its own made the stage mostly commits.
const embedWriteBatch = 1024

// embedEntities embeds every layer-0 entity that has no embedding (new, or whose description
// changed), from its name, type and description. It reads the entities a page at a time
// (entityPages), embeds
// Options.EmbedBatch texts at a time, and writes embedWriteBatch embedded entities at a time.
func (in *Ingester) embedEntities(ctx context.Context) (int, error) {
	done := 0
	var todo []graph.Entity // todo[:embedded] have their embeddings
	embedded := 0
	embedPending := func() error {
		if embedded == len(todo) {
			return nil
		}
		texts := make([]string, len(todo)-embedded)
		for i, e := range todo[embedded:] {
			texts[i] = e.EmbeddingText()
		}
		vecs, err := in.embed(ctx, texts)
		if err != nil {
			return fmt.Errorf("embed entities: %w", err)
		}
		for i := range texts {
			todo[embedded+i].Embedding = vecs[i]
		}
		embedded = len(todo)
		return nil
	}
	flush := func() error {
		if err := embedPending(); err != nil || len(todo) == 0 {
			return err
		}
		if err := in.Store.Apply(ctx, graph.Batch{Entities: todo}); err != nil {
			return fmt.Errorf("write entity embeddings: %w", err)
		}
		done += len(todo)
		todo, embedded = todo[:0], 0
		return nil
	}
	next := in.entityPages()
	for {
		page, last, err := next(ctx)
		if err != nil {
			return done, fmt.Errorf("read entities to embed: %w", err)
		}
		for _, e := range page {
			if len(e.Embedding) > 0 || e.Layer != 0 {
				continue
			}
			todo = append(todo, e)
			var err error
			switch {
			case len(todo) >= max(embedWriteBatch, in.Options.EmbedBatch):
				err = flush()
			case len(todo)-embedded == in.Options.EmbedBatch:
				err = embedPending()
			}
			if err != nil {
				return done, err
			}
		}
		if last {
			break
		}
	}
	if err := flush(); err != nil {
		return done, err
	}
	if done > 0 {
		in.Log.Info().Int("entities", done).Msg("embedded entities")
	}
	return done, nil
}

// entityPages returns what hands embedEntities the entities that may lack an embedding, a page
// at a time, and whether the page is the last: when the run records its changes (an update),
// only the entities it changed, since every other one was embedded when it was written;
// otherwise the layer-0 entities without an embedding, in id order (the ones embedded get
// theirs behind the pages read, so paging on after the last id read misses none).
func (in *Ingester) entityPages() func(context.Context) ([]graph.Entity, bool, error) {
	if in.changes != nil && !in.changes.full {
		ids := slices.Sorted(maps.Keys(in.changes.ids))
		return func(ctx context.Context) ([]graph.Entity, bool, error) {
			part := ids[:min(entityPage, len(ids))]
			ids = ids[len(part):]
			es, err := in.Store.Entities(ctx, part)
			return es, len(ids) == 0, err
		}
	}
	after := ""
	return func(ctx context.Context) ([]graph.Entity, bool, error) {
		page, err := in.Store.UnembeddedAfter(ctx, 0, after, entityPage)
		if len(page) > 0 {
			after = page[len(page)-1].ID
		}
		return page, len(page) < entityPage, err
	}
}

func (in *Ingester) embed(ctx context.Context, texts []string) ([][]float32, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	vecs, err := in.Embedder.Embed(ctx, texts)
	if err != nil {
		return nil, err
	}
	if len(vecs) != len(texts) {
		return nil, fmt.Errorf("embedder returned %d vectors for %d texts", len(vecs), len(texts))
	}
	return vecs, nil
}
