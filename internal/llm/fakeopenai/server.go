// Package fakeopenai is a deterministic OpenAI-compatible server for tests, benchmarks and demos.
//
// It answers strata's prompts (package prompts) with plausible output derived from the text in
// the prompt — capitalized spans become entities, entities named in one sentence become related —
// answers embeddings with lexical hash vectors, and reports realistic token usage. It can inject
// faults at chosen rates: 429s with Retry-After, 500s, hangs past the client's time-out, fixed
// latency, and malformed or unreadable answers. Faults are drawn from a hash of the seed, the request body and
// the attempt number, so a run is reproducible whatever order concurrent requests arrive in.
package fakeopenai

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/stratarag/strata/internal/embedding"
	"github.com/stratarag/strata/internal/tokenizer"
)

// Options configures a Server. Rates are fractions in [0, 1] of requests.
type Options struct {
	Seed int64
	// Latency delays every answer, errors included.
	Latency time.Duration
	// RateLimitRate answers 429 with Retry-After; ServerErrorRate answers 500; TimeoutRate hangs
	// until the client gives up (or Hang passes). They are drawn per attempt: a retry of the same
	// request gets a fresh draw.
	RateLimitRate   float64
	ServerErrorRate float64
	TimeoutRate     float64
	// MalformedRate mangles chat answers (broken and truncated records, prose, fences, cut JSON).
	// It is drawn per request content, so retries see the same answer, as with a real model.
	MalformedRate float64
	// UnreadableRate answers chat requests with the start of a reasoning block and nothing after
	// it, as a reasoning model that hit max_tokens while thinking does: with the reasoning
	// removed, nothing is left for a parser. It is drawn per request content, like
	// MalformedRate, and wins over it.
	UnreadableRate float64
	// RetryAfter is sent with 429s as Retry-After-Ms and Retry-After (rounded up to seconds).
	// Default 20ms.
	RetryAfter time.Duration
	// Hang bounds how long a time-out fault holds the request. Default one minute.
	Hang time.Duration
	// RefuseFormats lists the structured-output forms answered with 400, as servers that do not
	// know them do: "json_schema", "json_object+schema" (json_object with a schema beside it),
	// "json_object".
	RefuseFormats map[string]bool
	// EmbeddingDims is the length of embedding vectors unless the request asks for dimensions.
	// Default 64.
	EmbeddingDims int
	// Batch configures the Batch API (/v1/files, /v1/batches): polls before a job ends, how it
	// ends, lines failed. The zero value completes every job at its first poll.
	Batch BatchOptions
	// Log, when set, gets one JSON line per chat answer: its task, prompt and completion tokens,
	// finish reason and the first user message, so a benchmark can say where tokens go.
	Log io.Writer
}

// Counts says what the server has seen.
type Counts struct {
	Requests     int // every API request (POST)
	Chat         int // chat completions answered with 200
	Embeddings   int // embeddings requests answered with 200
	EmbedInputs  int // texts embedded
	RateLimited  int
	ServerErrors int
	Timeouts     int
	Malformed    int // chat answers mangled
	Unreadable   int // chat answers cut off while reasoning
	// BrokenRecords is how many tuple records the mangling broke or cut off.
	BrokenRecords    int
	PromptTokens     int
	CompletionTokens int
	ByTask           map[string]int // 200 chat answers per prompt task
	// The Batch API: files uploaded or written, jobs created, polls (retrievals), lines
	// answered in jobs (their chat answers count in Chat too) and lines failed by
	// BatchOptions.LineErrorRate.
	Files           int
	BatchCreates    int
	BatchPolls      int
	BatchLines      int
	BatchLineErrors int
}

// Server is the fake API. It implements http.Handler.
type Server struct {
	opts Options
	tok  *tokenizer.Tokenizer
	emb  *embedding.Offline

	mu           sync.Mutex
	attempts     map[[32]byte]int
	lineAttempts map[[32]byte]int // batch lines seen per body, for LineErrorRate's draws
	counts       Counts
	files        map[string]fakeFile
	batches      map[string]*fakeBatch
}

// New returns a server with opts.
func New(opts Options) (*Server, error) {
	tok, err := tokenizer.New()
	if err != nil {
		return nil, fmt.Errorf("fake OpenAI server: %w", err)
	}
	if opts.RetryAfter <= 0 {
		opts.RetryAfter = 20 * time.Millisecond
	}
	if opts.Hang <= 0 {
		opts.Hang = time.Minute
	}
	if opts.EmbeddingDims <= 0 {
		opts.EmbeddingDims = 64
	}
	return &Server{
		opts:         opts,
		tok:          tok,
		emb:          embedding.NewOffline(opts.EmbeddingDims),
		attempts:     map[[32]byte]int{},
		lineAttempts: map[[32]byte]int{},
		counts:       Counts{ByTask: map[string]int{}},
		files:        map[string]fakeFile{},
		batches:      map[string]*fakeBatch{},
	}, nil
}

// Start runs a Server on an httptest server. The caller closes the returned server.
func Start(opts Options) (*httptest.Server, *Server, error) {
	s, err := New(opts)
	if err != nil {
		return nil, nil, err
	}
	return httptest.NewServer(s), s, nil
}

// Counts returns a copy of the counters.
func (s *Server) Counts() Counts {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.counts
	c.ByTask = make(map[string]int, len(s.counts.ByTask))
	for k, v := range s.counts.ByTask {
		c.ByTask[k] = v
	}
	return c
}

func (s *Server) count(f func(c *Counts)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(&s.counts)
}

// ServeHTTP implements http.Handler for POST /v1/chat/completions and /v1/embeddings, and the
// Batch API: POST /v1/files, GET /v1/files/{id}/content, POST /v1/batches, GET
// /v1/batches/{id} (any prefix before them is accepted).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if _, _, ok := batchPath(r.URL.Path); ok && r.Method == http.MethodGet {
		// Polls and downloads are not counted as requests (Counts.BatchPolls counts polls),
		// and draw no faults: the client retries them as any request, and counting them
		// would make Requests depend on timing.
		s.batchAPI(w, r, nil)
		return
	}
	if r.Method == http.MethodGet {
		// What a client asks of a server's self-description (llama.cpp's /props) is not an
		// API request: answered as a server without it does, and not counted.
		writeError(w, http.StatusNotFound, "invalid_request_error", "unknown endpoint "+r.URL.Path)
		return
	}
	s.count(func(c *Counts) { c.Requests++ })
	body, err := io.ReadAll(r.Body)
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "cannot read body")
		return
	}
	if r.Method != http.MethodPost {
		writeError(w, http.StatusMethodNotAllowed, "invalid_request_error", "use POST")
		return
	}
	start := time.Now()
	if s.fault(w, r, body) {
		return
	}
	// The answer is computed while the latency runs, so that Latency is the response time a
	// client sees and benchmarks measure the client, not this server's CPU.
	var buf buffered
	switch {
	case strings.HasSuffix(r.URL.Path, "/chat/completions"):
		s.chat(&buf, body)
	case strings.HasSuffix(r.URL.Path, "/embeddings"):
		s.embeddings(&buf, body)
	case isBatchPath(r.URL.Path):
		s.batchAPI(&buf, r, body)
	default:
		writeError(&buf, http.StatusNotFound, "invalid_request_error", "unknown endpoint "+r.URL.Path)
	}
	if !s.wait(r.Context(), s.opts.Latency-time.Since(start)) {
		return
	}
	buf.flush(w)
}

func isBatchPath(path string) bool {
	_, _, ok := batchPath(path)
	return ok
}

// buffered is a ResponseWriter that keeps the response until flush.
type buffered struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (b *buffered) Header() http.Header {
	if b.header == nil {
		b.header = http.Header{}
	}
	return b.header
}

func (b *buffered) Write(p []byte) (int, error) { return b.body.Write(p) }

func (b *buffered) WriteHeader(status int) { b.status = status }

func (b *buffered) flush(w http.ResponseWriter) {
	for k, v := range b.header {
		w.Header()[k] = v
	}
	if b.status != 0 {
		w.WriteHeader(b.status)
	}
	w.Write(b.body.Bytes())
}

func (s *Server) wait(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// draw returns a deterministic number in [0, 1) for the given parts.
func (s *Server) draw(parts ...[]byte) float64 {
	h := sha256.New()
	var seed [8]byte
	binary.LittleEndian.PutUint64(seed[:], uint64(s.opts.Seed))
	h.Write(seed[:])
	for _, p := range parts {
		var n [8]byte
		binary.LittleEndian.PutUint64(n[:], uint64(len(p)))
		h.Write(n[:])
		h.Write(p)
	}
	sum := h.Sum(nil)
	return float64(binary.LittleEndian.Uint64(sum)>>11) / (1 << 53)
}

// fault injects the configured failures; it reports whether it answered the request.
func (s *Server) fault(w http.ResponseWriter, r *http.Request, body []byte) bool {
	if s.opts.RateLimitRate+s.opts.ServerErrorRate+s.opts.TimeoutRate <= 0 {
		return false
	}
	key := sha256.Sum256(body)
	s.mu.Lock()
	attempt := s.attempts[key]
	s.attempts[key]++
	s.mu.Unlock()
	u := s.draw([]byte("fault"), key[:], []byte(strconv.Itoa(attempt)))
	if u >= s.opts.RateLimitRate+s.opts.ServerErrorRate+s.opts.TimeoutRate {
		return false
	}
	if !s.wait(r.Context(), s.opts.Latency) {
		return true
	}
	switch {
	case u < s.opts.RateLimitRate:
		s.count(func(c *Counts) { c.RateLimited++ })
		ra := s.opts.RetryAfter
		w.Header().Set("Retry-After-Ms", strconv.FormatInt(ra.Milliseconds(), 10))
		w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(ra.Seconds()))))
		writeError(w, http.StatusTooManyRequests, "rate_limit_exceeded", "Rate limit reached (fake)")
		return true
	case u < s.opts.RateLimitRate+s.opts.ServerErrorRate:
		s.count(func(c *Counts) { c.ServerErrors++ })
		writeError(w, http.StatusInternalServerError, "server_error", "The server had an error (fake)")
		return true
	case u < s.opts.RateLimitRate+s.opts.ServerErrorRate+s.opts.TimeoutRate:
		s.count(func(c *Counts) { c.Timeouts++ })
		if s.wait(r.Context(), s.opts.Hang) {
			writeError(w, http.StatusGatewayTimeout, "timeout", "upstream timed out (fake)")
		}
		return true
	}
	return false
}

func writeError(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{
		"error": map[string]any{"message": msg, "type": code, "code": code},
	})
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

type usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}
