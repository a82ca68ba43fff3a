package server

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stratarag/strata/cmd/strata/internal/server/apikeys"
	"github.com/stratarag/strata/cmd/strata/internal/server/servertest"
)

// TestMetrics: /metrics needs a key, and counts requests by workspace, endpoint, mode and
// status, queries' time by mode, the store's opens and the queries in flight; what a client
// sends (a workspace or mode the server does not have) never becomes a label.
func TestMetrics(t *testing.T) {
	keys, err := apikeys.Parse(strings.NewReader(keyAll + " *\n" + keyOther + " other\n"))
	if err != nil {
		t.Fatal(err)
	}
	hs := runWith(t, Config{Keys: keys}, nil)
	for _, req := range []struct{ method, path, body, key string }{
		{"POST", "/query", `{"question": "Where is Port Avel?", "mode": "naive"}`, keyAll},
		{"POST", "/query", `{"question": "Where is Port Avel?", "mode": "naive"}`, keyAll},
		{"POST", "/query", `{"question": "Where is Port Avel?", "mode": "lca"}`, keyAll},
		{"POST", "/query", `{"question": "x", "mode": "fast-and-loose"}`, keyAll},
		{"POST", "/query", `{"question": "x", "top_k": 0, "mode": "naive"}`, keyAll},
		{"POST", "/w/made-up-1/query", `{"question": "x"}`, keyAll},
		{"POST", "/w/made-up-2/query", `{"question": "x"}`, keyAll},
		{"GET", "/status", "", keyAll},
		{"GET", "/status", "", keyOther},
		{"GET", "/status", "", ""},
		{"GET", "/healthz", "", ""},
	} {
		servertest.DoKey(t, req.method, hs.URL+req.path, req.body, req.key)
	}
	if status, header, _ := servertest.Do(t, http.MethodGet, hs.URL+"/metrics", ""); status != http.StatusUnauthorized || header.Get("WWW-Authenticate") == "" {
		t.Errorf("/metrics without a key: %d", status)
	}
	got := servertest.Metrics(t, hs.URL+"/metrics", keyOther)
	for series, want := range map[string]float64{
		`strata_requests_total{endpoint="query",mode="naive",status="200",workspace="default"}`: 2,
		`strata_requests_total{endpoint="query",mode="lca",status="200",workspace="default"}`:   1,
		`strata_requests_total{endpoint="query",mode="",status="400",workspace="default"}`:      1,
		`strata_requests_total{endpoint="query",mode="naive",status="400",workspace="default"}`: 1,
		`strata_requests_total{endpoint="query",mode="",status="404",workspace=""}`:             2,
		`strata_requests_total{endpoint="status",mode="",status="200",workspace="default"}`:     1,
		`strata_requests_total{endpoint="status",mode="",status="403",workspace="default"}`:     1,
		`strata_requests_total{endpoint="status",mode="",status="401",workspace="default"}`:     1,
		`strata_requests_total{endpoint="healthz",mode="",status="200",workspace=""}`:           1,
		`strata_query_duration_seconds_count{mode="naive",workspace="default"}`:                 2,
		`strata_query_duration_seconds_count{mode="lca",workspace="default"}`:                   1,
		`strata_llm_calls_total{workspace="default"}`:                                           0,
		`strata_embedding_calls_total{workspace="default"}`:                                     0,
		`strata_store_generation{workspace="default"}`:                                          1,
		`strata_store_last_ingest_timestamp_seconds{workspace="default"}`:                       got[`strata_store_last_ingest_timestamp_seconds{workspace="default"}`],
		`strata_queries_in_flight`:     0,
		`strata_queries_in_flight_max`: DefaultMaxInflight,
	} {
		if v, ok := got[series]; !ok || v != want {
			t.Errorf("%s = %v (present: %v), want %v", series, v, ok, want)
		}
	}
	if ts := got[`strata_store_last_ingest_timestamp_seconds{workspace="default"}`]; ts < 1.7e9 {
		t.Errorf("last ingest at %v, want a time after 2023", ts)
	}
	if _, ok := got["go_goroutines"]; !ok {
		t.Error("no go_goroutines: the Go collector is missing")
	}
	for series := range got {
		if strings.Contains(series, "made-up") || strings.Contains(series, "fast-and-loose") {
			t.Errorf("a client's value became a label: %s", series)
		}
	}
}
