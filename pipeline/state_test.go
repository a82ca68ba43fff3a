package pipeline_test

import (
	"context"
	"testing"

	"github.com/stratarag/strata/internal/graph"
)

func ingestState(t *testing.T, store graph.MetaReader) graph.IngestState {
	t.Helper()
	st, err := graph.ReadIngestState(context.Background(), store)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestIngestRecordsItsState: a run that stops after its documents (here: the reporter fails)
// leaves the store marked unfinished with a stale structure, which is what status and query
// warn about; a run that finishes clears both and records the documents that failed, until a
// run retries them.
func TestIngestRecordsItsState(t *testing.T) {
	store := openStore(t, t.TempDir())
	if st := ingestState(t, store); st.Started != "" || !st.Complete || len(st.Warnings()) != 0 {
		t.Fatalf("new store: %+v", st)
	}

	in := newIngester(t, store, nil)
	in.Reporter = failingReporter{}
	if _, err := in.Run(context.Background(), []string{corpusDir}); err == nil {
		t.Fatal("a failing reporter did not fail the run")
	}
	st := ingestState(t, store)
	if !st.Unfinished || !st.StructureStale || st.Complete || st.Started == "" || st.Finished != "" || len(st.Warnings()) != 1 {
		t.Errorf("after a run that stopped before the reports: %+v, warnings %q", st, st.Warnings())
	}

	ingest(t, store, corpusDir)
	if st := ingestState(t, store); !st.Complete || len(st.Warnings()) != 0 || st.Finished == "" {
		t.Errorf("after a run that finished: %+v, warnings %q", st, st.Warnings())
	}

	other := openStore(t, t.TempDir())
	rep, err := newIngester(t, other, &failingExtractor{marker: "Ashfever"}).Run(context.Background(), []string{corpusDir})
	if err != nil || rep.Failed == 0 {
		t.Fatalf("run with a failing document: %+v, %v", rep, err)
	}
	st = ingestState(t, other)
	if st.Unfinished || st.StructureStale || st.Complete || st.FailedDocuments != rep.Failed || st.Finished == "" || len(st.Warnings()) != 1 {
		t.Errorf("after a run with %d failed documents: %+v, warnings %q", rep.Failed, st, st.Warnings())
	}
	ingest(t, other, corpusDir)
	if st := ingestState(t, other); !st.Complete || len(st.Warnings()) != 0 {
		t.Errorf("after the retry: %+v, warnings %q", st, st.Warnings())
	}
}
