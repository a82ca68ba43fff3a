package pipeline

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/stratarag/strata/internal/graph"
)

// markStarted records that a run began (graph.MetaIngestState), so that a run killed or failed
// before markFinished shows in status and in query warnings.
func (in *Ingester) markStarted(ctx context.Context) error {
	return in.recordState(ctx, map[string]string{
		graph.MetaIngestState:   graph.IngestStarted,
		graph.MetaIngestStarted: time.Now().UTC().Format(time.RFC3339),
	})
}

// markFinished records that the run completed every stage, and how many documents failed.
func (in *Ingester) markFinished(ctx context.Context, rep *Report) error {
	return in.recordState(ctx, map[string]string{
		graph.MetaIngestState:    graph.IngestFinished,
		graph.MetaIngestFinished: time.Now().UTC().Format(time.RFC3339),
		graph.MetaIngestFailed:   strconv.Itoa(rep.Failed),
	})
}

func (in *Ingester) recordState(ctx context.Context, meta map[string]string) error {
	if err := in.Store.Apply(ctx, graph.Batch{Meta: meta}); err != nil {
		return fmt.Errorf("record the ingest state: %w", err)
	}
	return nil
}
