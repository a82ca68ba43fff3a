package pipeline

import (
	"context"
	"fmt"

	"github.com/stratarag/strata/internal/graph"
)

// embedEntities embeds every layer-0 entity that has no embedding (new, or whose description
// changed), from its name, type and description.
func (in *Ingester) embedEntities(ctx context.Context) (int, error) {
	entities, err := in.Store.EntitiesByLayer(ctx, 0)
	if err != nil {
		return 0, fmt.Errorf("read entities to embed: %w", err)
	}
	var todo []graph.Entity
	for _, e := range entities {
		if len(e.Embedding) == 0 {
			todo = append(todo, e)
		}
	}
	size := in.Options.EmbedBatch
	for startAt := 0; startAt < len(todo); startAt += size {
		part := todo[startAt:min(startAt+size, len(todo))]
		texts := make([]string, len(part))
		for i, e := range part {
			texts[i] = e.EmbeddingText()
		}
		vecs, err := in.embed(ctx, texts)
		if err != nil {
			return startAt, fmt.Errorf("embed entities: %w", err)
		}
		for i := range part {
			part[i].Embedding = vecs[i]
		}
		if err := in.Store.Apply(ctx, graph.Batch{Entities: part}); err != nil {
			return startAt, fmt.Errorf("write entity embeddings: %w", err)
		}
	}
	if len(todo) > 0 {
		in.Log.Info().Int("entities", len(todo)).Msg("embedded entities")
	}
	return len(todo), nil
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
