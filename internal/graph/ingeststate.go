package graph

import (
	"context"
	"fmt"
	"strconv"
)

// IngestState is what a store records about the last ingest run (the MetaIngest… keys and
// MetaStructureStale). status shows it, query warns with it: a run killed or failed half-way
// leaves a graph that answers from partial structure, and nothing else would say so.
type IngestState struct {
	Started  string `json:"started,omitempty"`  // RFC 3339; empty in stores built before it was recorded
	Finished string `json:"finished,omitempty"` // the last run that completed
	// Unfinished: the last run started and did not finish (killed, failed, or still running).
	Unfinished bool `json:"unfinished"`
	// StructureStale: documents changed the graph after the summary layers, components,
	// communities and reports were last built.
	StructureStale bool `json:"structure_stale"`
	// FailedDocuments were not ingested by the last finished run.
	FailedDocuments int `json:"failed_documents"`
	// Complete is true when none of the above calls for another run.
	Complete bool `json:"complete"`
}

// ReadIngestState reads the ingest state recorded in store.
func ReadIngestState(ctx context.Context, store MetaReader) (IngestState, error) {
	vals, err := MetaValues(ctx, store, MetaIngestState, MetaIngestStarted, MetaIngestFinished, MetaIngestFailed, MetaStructureStale)
	if err != nil {
		return IngestState{}, err
	}
	s := IngestState{
		Started:        vals[MetaIngestStarted],
		Finished:       vals[MetaIngestFinished],
		Unfinished:     vals[MetaIngestState] == IngestStarted,
		StructureStale: StructurePending(vals[MetaStructureStale]),
	}
	if v := vals[MetaIngestFailed]; v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return IngestState{}, fmt.Errorf("read store metadata: %s = %q is not a number", MetaIngestFailed, v)
		}
		s.FailedDocuments = n
	}
	s.Complete = !s.Unfinished && !s.StructureStale && s.FailedDocuments == 0
	return s, nil
}

// Warnings says, one sentence each, what is wrong with the store's state and what to do.
func (s IngestState) Warnings() []string {
	var w []string
	run := "the last ingest"
	if s.Started != "" {
		run += " (started " + s.Started + ")"
	}
	switch {
	case s.StructureStale:
		cause := "an ingest stopped before finishing them"
		if s.Unfinished {
			cause = run + " did not finish"
		}
		w = append(w, "the graph structure is stale: documents were written after the summary layers, communities and "+
			"community reports were last built ("+cause+"), so answers draw on partial or outdated structure; "+
			"re-run `strata ingest` to finish (unchanged documents are skipped, model answers come from the cache)")
	case s.Unfinished:
		w = append(w, run+" did not finish (it was interrupted, failed, or is still running); "+
			"re-run `strata ingest` with the same inputs to finish it")
	}
	if s.FailedDocuments > 0 {
		w = append(w, fmt.Sprintf("%d document(s) failed in the last ingest and are not in the store; re-run `strata ingest` to retry them", s.FailedDocuments))
	}
	return w
}
