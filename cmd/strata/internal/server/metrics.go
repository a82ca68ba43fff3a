package server

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/llm"
	"github.com/stratarag/strata/retrieval"
)

// metrics are the series GET /metrics serves, in a registry of the server's own. Label values
// come from the server's workspaces, modes and statuses only, never from what a client sent as
// is, so that no client can grow the number of series.
type metrics struct {
	reg             *prometheus.Registry
	requests        *prometheus.CounterVec
	queryDuration   *prometheus.HistogramVec
	llmCalls        *prometheus.CounterVec
	llmTokens       *prometheus.CounterVec
	embeddingCalls  *prometheus.CounterVec
	storeGeneration *prometheus.GaugeVec
	lastIngest      *prometheus.GaugeVec
}

// queryBuckets span a query without a model (tens of milliseconds) to one whose model calls
// take minutes.
var queryBuckets = []float64{.01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120, 300}

func newMetrics(s *Server) *metrics {
	m := &metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "strata_requests_total",
			Help: "HTTP requests answered, by workspace, endpoint, query mode and status.",
		}, []string{"workspace", "endpoint", "mode", "status"}),
		queryDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "strata_query_duration_seconds",
			Help:    "Time to answer a query that succeeded, from its request to its answer's last byte, by workspace and mode.",
			Buckets: queryBuckets,
		}, []string{"workspace", "mode"}),
		llmCalls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "strata_llm_calls_total",
			Help: "Chat model calls made by queries (cache hits excluded), by workspace.",
		}, []string{"workspace"}),
		llmTokens: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "strata_llm_tokens_total",
			Help: "Chat model tokens of queries' calls, by workspace and kind (prompt, completion).",
		}, []string{"workspace", "kind"}),
		embeddingCalls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "strata_embedding_calls_total",
			Help: "Embedding model calls made by queries, by workspace.",
		}, []string{"workspace"}),
		storeGeneration: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "strata_store_generation",
			Help: "Times the workspace's store was opened by this server: 1 after the first open, one more each time it was replaced on disk and opened again.",
		}, []string{"workspace"}),
		lastIngest: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "strata_store_last_ingest_timestamp_seconds",
			Help: "When the last ingest into the workspace's store finished (Unix time), as its last query read it.",
		}, []string{"workspace"}),
	}
	m.reg.MustRegister(m.requests, m.queryDuration, m.llmCalls, m.llmTokens, m.embeddingCalls, m.storeGeneration, m.lastIngest,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "strata_queries_in_flight",
			Help: "Queries being answered now.",
		}, func() float64 { return float64(len(s.inflight)) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "strata_queries_in_flight_max",
			Help: "The most queries answered at once (--max-inflight).",
		}, func() float64 { return float64(cap(s.inflight)) }),
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	return m
}

// request counts a request once answered, and a query's time when it succeeded. workspace is
// "" when the request named none the server has.
func (m *metrics) request(workspace, endpoint string, w *responseRecorder, took time.Duration) {
	mode := ""
	if endpoint == "query" {
		if md, err := retrieval.ParseMode(w.mode); err == nil {
			mode = md.String()
		}
	}
	m.requests.WithLabelValues(workspace, endpoint, mode, strconv.Itoa(w.status)).Inc()
	if endpoint == "query" && w.status == http.StatusOK && mode != "" {
		m.queryDuration.WithLabelValues(workspace, mode).Observe(took.Seconds())
	}
}

// usage adds a query's model usage.
func (m *metrics) usage(workspace string, u llm.StageUsage) {
	m.llmCalls.WithLabelValues(workspace).Add(float64(u.LLMCalls))
	m.llmTokens.WithLabelValues(workspace, "prompt").Add(float64(u.PromptTokens))
	m.llmTokens.WithLabelValues(workspace, "completion").Add(float64(u.CompletionTokens))
	m.embeddingCalls.WithLabelValues(workspace).Add(float64(u.EmbeddingCalls))
}

// ingestState records when the last ingest into the workspace's store finished.
func (m *metrics) ingestState(workspace string, st graph.IngestState) {
	if t, err := time.Parse(time.RFC3339, st.Finished); err == nil {
		m.lastIngest.WithLabelValues(workspace).Set(float64(t.Unix()))
	}
}

// serveMetrics answers GET /metrics in the Prometheus text format.
func (s *Server) serveMetrics(w *responseRecorder, r *http.Request, _ *workspace) error {
	promhttp.HandlerFor(s.metrics.reg, promhttp.HandlerOpts{}).ServeHTTP(w, r)
	return nil
}
