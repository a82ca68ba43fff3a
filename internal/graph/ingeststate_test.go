package graph

import (
	"context"
	"strings"
	"testing"
)

type metaMap map[string]string

func (m metaMap) Meta(_ context.Context, key string) (string, bool, error) {
	v, ok := m[key]
	return v, ok, nil
}

func TestReadIngestState(t *testing.T) {
	const at = "2026-01-02T03:04:05Z"
	for _, tc := range []struct {
		name     string
		meta     metaMap
		complete bool
		warnings []string // one substring per warning, in order
	}{
		{"new or old store", metaMap{}, true, nil},
		{"finished", metaMap{MetaIngestState: IngestFinished, MetaIngestStarted: at, MetaIngestFinished: at, MetaIngestFailed: "0", MetaStructureStale: "false"}, true, nil},
		{"killed in the structure stages", metaMap{MetaIngestState: IngestStarted, MetaIngestStarted: at, MetaStructureStale: "true"}, false,
			[]string{"structure is stale: documents were written after the summary layers, communities and community reports were last built (the last ingest (started " + at + ") did not finish)"}},
		{"killed before writing anything", metaMap{MetaIngestState: IngestStarted, MetaIngestStarted: at}, false,
			[]string{"the last ingest (started " + at + ") did not finish"}},
		{"stale from an older version", metaMap{MetaStructureStale: "true"}, false, []string{"an ingest stopped before finishing them"}},
		{"failed documents", metaMap{MetaIngestState: IngestFinished, MetaIngestStarted: at, MetaIngestFailed: "2"}, false,
			[]string{"2 document(s) failed in the last ingest"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, err := ReadIngestState(context.Background(), tc.meta)
			if err != nil {
				t.Fatal(err)
			}
			w := st.Warnings()
			if st.Complete != tc.complete || len(w) != len(tc.warnings) {
				t.Fatalf("state %+v, warnings %q", st, w)
			}
			for i, want := range tc.warnings {
				if !strings.Contains(w[i], want) || !strings.Contains(w[i], "re-run `strata ingest`") {
					t.Errorf("warning %q does not say %q and what to do", w[i], want)
				}
			}
		})
	}
	if _, err := ReadIngestState(context.Background(), metaMap{MetaIngestFailed: "many"}); err == nil || !strings.Contains(err.Error(), "many") {
		t.Errorf("bad %s: err %v", MetaIngestFailed, err)
	}
}
