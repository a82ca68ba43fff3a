// Package server is strata serve's HTTP side: POST /query, GET /status and GET /healthz over
// one store, which is opened when a request first needs it and again when it was replaced on
// disk. The CLI (cmd/strata) chooses and opens the store, and runs the server on a listener.
package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/rs/zerolog"
	"golang.org/x/time/rate"

	"github.com/stratarag/strata/cmd/strata/internal/server/apikeys"
	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/llm"
	"github.com/stratarag/strata/retrieval"
)

// maxQueryBody bounds a POST /query body: a question and a few options fit in far less.
const maxQueryBody = 1 << 20

// MaxQuestionChars bounds a question, in characters: it is embedded and searched whole, and an
// embedding model's input holds a few thousand words.
const MaxQuestionChars = 10_000

// Store is the store the server answers from, and its engine.
type Store struct {
	Engine *retrieval.Engine
	// Kind and Location name the backend in the log ("embedded" or "neo4j", and where).
	Kind, Location string
	// Status reads the object GET /status answers with.
	Status func(ctx context.Context) (any, error)
	Close  func()
	// Replaced tells that the database on disk is no longer the file this store opened (the
	// data dir was deleted, or deleted and ingested again); nil where that cannot happen.
	Replaced func() bool
	// Warm tells whether the store has loaded what it keeps in memory, which it does in the
	// background (GET /healthz's "warm"); nil for a store that is always ready.
	Warm  func() bool
	inUse sync.WaitGroup // requests reading through this store
}

// Opener opens the store the server answers from.
type Opener func(ctx context.Context) (*Store, error)

// Config is what a server serves and how: its store and the limits on its connections. Zero
// durations and counts take the defaults below.
type Config struct {
	// Store opens the store of the workspace "default", served at /query and /status (and
	// /w/default/...); nil: none.
	Store Opener
	// Workspaces open the stores of the named workspaces, served at /w/NAME/query and
	// /w/NAME/status.
	Workspaces map[string]Opener
	// IdleTimeout is how long a keep-alive connection may wait for its next request.
	IdleTimeout time.Duration
	// MaxConns caps the connections open at once; past it, idle connections are closed to make
	// room, and new ones wait for a free slot.
	MaxConns int
	// RequestTimeout bounds a request's time, from its headers to its answer's last byte.
	RequestTimeout time.Duration
	// MaxInflight caps the queries answered at once; past it a query gets 503.
	MaxInflight int
	// Rate, when above 0, is the queries and status requests per second each key may send (one
	// rate for all requests without keys); past it a request gets 429. Bursts of up to Rate (at
	// least 1) pass.
	Rate float64
	// Keys, when set, are the keys a request must carry (Authorization: Bearer KEY) on every
	// endpoint but /healthz, each granting its workspaces; nil: no key is asked for.
	Keys *apikeys.Set
}

// Defaults and bounds of Config. A connection holds a file descriptor, and a process commonly
// gets 1 024, the store's files included: the default cap leaves room for them.
const (
	DefaultIdleTimeout = 30 * time.Second
	MaxIdleTimeout     = 10 * time.Minute
	DefaultMaxConns    = 512
	MaxMaxConns        = 65536

	DefaultRequestTimeout = 5 * time.Minute
	MaxRequestTimeout     = time.Hour
	DefaultMaxInflight    = 64
	MaxMaxInflight        = 10000
	MaxRate               = 1e6
)

// Check reports the first setting of c that a server cannot use, naming it.
func (c Config) Check() error {
	switch {
	case c.Store == nil && len(c.Workspaces) == 0:
		return errors.New("no store to serve")
	case c.Store != nil && c.Workspaces[DefaultWorkspace] != nil:
		return fmt.Errorf("two stores for the workspace %q", DefaultWorkspace)
	case c.IdleTimeout < 0 || c.IdleTimeout > MaxIdleTimeout:
		return fmt.Errorf("idle timeout must be between 0 (the default, %s) and %s, got %s", DefaultIdleTimeout, MaxIdleTimeout, c.IdleTimeout)
	case c.MaxConns < 0 || c.MaxConns > MaxMaxConns:
		return fmt.Errorf("max connections must be between 0 (the default, %d) and %d, got %d", DefaultMaxConns, MaxMaxConns, c.MaxConns)
	case c.RequestTimeout < 0 || c.RequestTimeout > MaxRequestTimeout:
		return fmt.Errorf("request timeout must be between 0 (the default, %s) and %s, got %s", DefaultRequestTimeout, MaxRequestTimeout, c.RequestTimeout)
	case c.MaxInflight < 0 || c.MaxInflight > MaxMaxInflight:
		return fmt.Errorf("max queries in flight must be between 0 (the default, %d) and %d, got %d", DefaultMaxInflight, MaxMaxInflight, c.MaxInflight)
	case !(c.Rate >= 0 && c.Rate <= MaxRate):
		return fmt.Errorf("rate must be between 0 (none) and %g per second, got %v", float64(MaxRate), c.Rate)
	}
	for name, open := range c.Workspaces {
		switch {
		case !apikeys.ValidWorkspace(name):
			return fmt.Errorf("workspace name %q: want letters, digits, - and _ (at most 64)", name)
		case open == nil:
			return fmt.Errorf("workspace %q: no store", name)
		}
	}
	return nil
}

// Server answers HTTP requests from its workspaces' stores. Every request reads through its
// workspace's one engine; the stores are safe for concurrent use, and the embedded store's
// caches follow the store's generations, so data an ingest commits later is seen without a
// restart. A data dir deleted and built again is a new file: the server opens it at the next
// request.
type Server struct {
	log        zerolog.Logger
	cfg        Config
	workspaces map[string]*workspace
	retiring   sync.WaitGroup // replaced stores waiting for their last request before closing
	inflight   chan struct{}  // a slot per query being answered
	// limiters are the keys' rates, by key ID ("" without keys); nil without a rate.
	limiters map[string]*rate.Limiter
	metrics  *metrics
}

// New returns a server over cfg, which opens each store when a request first needs it.
func New(log zerolog.Logger, cfg Config) (*Server, error) {
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	if cfg.IdleTimeout == 0 {
		cfg.IdleTimeout = DefaultIdleTimeout
	}
	if cfg.MaxConns == 0 {
		cfg.MaxConns = DefaultMaxConns
	}
	if cfg.RequestTimeout == 0 {
		cfg.RequestTimeout = DefaultRequestTimeout
	}
	if cfg.MaxInflight == 0 {
		cfg.MaxInflight = DefaultMaxInflight
	}
	s := &Server{log: log, cfg: cfg, workspaces: map[string]*workspace{}, inflight: make(chan struct{}, cfg.MaxInflight),
		limiters: newLimiters(cfg.Rate, cfg.Keys)}
	if cfg.Store != nil {
		s.workspaces[DefaultWorkspace] = &workspace{name: DefaultWorkspace, open: cfg.Store}
	}
	for name, open := range cfg.Workspaces {
		s.workspaces[name] = &workspace{name: name, open: open}
	}
	s.metrics = newMetrics(s)
	return s, nil
}

// readHeaderTimeout bounds the wait for a request's headers, from the connection's start or the
// end of the previous request's body: a client that opens connections and sends nothing holds
// them no longer.
const readHeaderTimeout = 10 * time.Second

// Serve answers on ln until ctx is done, then shuts down gracefully: no new connections, requests
// in flight get up to grace to finish. Requests do not inherit ctx, so the signal that ends the
// server does not cancel the queries it is letting finish.
func (s *Server) Serve(ctx context.Context, ln net.Listener, grace time.Duration) error {
	hs := &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       30 * time.Second,
		IdleTimeout:       s.cfg.IdleTimeout,
	}
	closeIdle := func() {
		// The server's own sweep, as at shutdown: it closes the connections waiting for a
		// next request, and those that have sent nothing for a while.
		hs.SetKeepAlivesEnabled(false)
		hs.SetKeepAlivesEnabled(true)
	}
	limited := newLimitListener(ln, s.cfg.MaxConns, func() {
		s.log.Debug().Int("max_conns", s.cfg.MaxConns).Msg("connection cap reached: closing idle connections")
		closeIdle()
	})
	hs.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateIdle && limited.Waiting() {
			closeIdle()
		}
	}
	if s.cfg.Keys == nil && !IsLoopback(ln.Addr()) {
		s.log.Warn().Str("addr", ln.Addr().String()).Msg("listening on a non-loopback address without keys: anyone who reaches it can query every store")
	}
	if s.cfg.Keys != nil {
		for _, k := range s.cfg.Keys.Keys() {
			s.log.Info().Str("key", k.ID).Int("line", k.Line).Strs("workspaces", k.Workspaces()).Msg("key")
		}
	}
	s.log.Info().Str("addr", ln.Addr().String()).Str("url", "http://"+ln.Addr().String()).Msg("serving")
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(limited) }()
	defer s.Close()
	select {
	case err := <-errc:
		return fmt.Errorf("serve on %s: %w", ln.Addr(), err)
	case <-ctx.Done():
	}
	s.log.Info().Dur("grace", grace).Msg("shutting down: waiting for requests in flight")
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		hs.Close()
		return &ShutdownError{Grace: grace, Err: err}
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve on %s: %w", ln.Addr(), err)
	}
	s.log.Info().Msg("stopped")
	return nil
}

// ShutdownError is a shutdown whose requests in flight were still running after the grace
// period.
type ShutdownError struct {
	Grace time.Duration
	Err   error
}

func (e *ShutdownError) Error() string {
	return fmt.Sprintf("shut down: requests still running after %s: %v", e.Grace, e.Err)
}

func (e *ShutdownError) Unwrap() error { return e.Err }

// IsLoopback tells whether a is a TCP address on a loopback interface.
func IsLoopback(a net.Addr) bool {
	tcp, ok := a.(*net.TCPAddr)
	return ok && tcp.IP.IsLoopback()
}

// DefaultWorkspace is the workspace of the single-store endpoints, /query and /status: the
// name a key grants them by.
const DefaultWorkspace = "default"

// endpoint is what a path asks for, and of which workspace ("" for none).
type endpoint struct {
	name      string // in metrics: query, status, healthz, metrics
	methods   []string
	fn        func(w *responseRecorder, r *http.Request, ws *workspace) error
	workspace string
	open      bool // answered without a key
	query     bool // takes a slot of MaxInflight
}

// route finds the endpoint of a path: /query and /status (the workspace "default"),
// /w/NAME/query and /w/NAME/status, /healthz, /metrics; ok is false for any other path.
func (s *Server) route(path string) (ep endpoint, ok bool) {
	ws := DefaultWorkspace
	if rest, found := strings.CutPrefix(path, "/w/"); found {
		name, sub, found := strings.Cut(rest, "/")
		if !found || name == "" {
			return ep, false
		}
		ws, path = name, "/"+sub
	} else {
		switch path {
		case "/healthz":
			return endpoint{name: "healthz", methods: []string{http.MethodGet, http.MethodHead}, fn: s.healthz, open: true}, true
		case "/metrics":
			return endpoint{name: "metrics", methods: []string{http.MethodGet, http.MethodHead}, fn: s.serveMetrics}, true
		}
	}
	switch path {
	case "/query":
		return endpoint{name: "query", methods: []string{http.MethodPost}, fn: s.query, workspace: ws, query: true}, true
	case "/status":
		return endpoint{name: "status", methods: []string{http.MethodGet, http.MethodHead}, fn: s.status, workspace: ws}, true
	}
	return ep, false
}

// Handler routes the endpoints; anything else is a JSON 404, a wrong method a JSON 405. With
// keys, every endpoint but /healthz needs one (401), granting the endpoint's workspace (403,
// whether the workspace exists or not, so that a key learns nothing of those it is not granted).
func (s *Server) Handler() http.Handler {
	return http.HandlerFunc(func(hw http.ResponseWriter, r *http.Request) {
		start := time.Now()
		w := &responseRecorder{ResponseWriter: hw}
		ctx, cancel := context.WithTimeoutCause(r.Context(), s.cfg.RequestTimeout, errRequestTimeout)
		defer cancel()
		r = r.WithContext(ctx)
		ep, ok := s.route(r.URL.Path)
		w.workspace = ep.workspace
		ws := s.workspaces[ep.workspace]
		var err error
		switch {
		case !ep.open && !s.authenticate(w, r, &err):
		case !ok:
			err = httpError{http.StatusNotFound, fmt.Errorf("no such endpoint %s (want POST /query, GET /status, POST /w/NAME/query, GET /w/NAME/status, GET /healthz, GET /metrics)", r.URL.Path)}
		case !slices.Contains(ep.methods, r.Method):
			w.Header().Set("Allow", strings.Join(ep.methods, ", "))
			err = httpError{http.StatusMethodNotAllowed, fmt.Errorf("%s %s: method not allowed (want %s)", r.Method, r.URL.Path, strings.Join(ep.methods, " or "))}
		case ep.workspace != "" && !s.granted(w, ep.workspace, &err):
		case ep.workspace != "" && ws == nil && ep.workspace == DefaultWorkspace:
			err = httpError{http.StatusNotFound, fmt.Errorf("this server has no workspace %q: ask /w/NAME%s", DefaultWorkspace, strings.TrimPrefix(r.URL.Path, "/w/"+DefaultWorkspace))}
		case ep.workspace != "" && ws == nil:
			err = httpError{http.StatusNotFound, fmt.Errorf("no workspace %q", ep.workspace)}
		case ep.workspace != "" && !s.allow(w, &err):
		default:
			err = s.answer(w, r, ep, ws)
		}
		switch {
		case err != nil && w.streaming:
			s.writeStreamError(w, r, err)
		case err != nil:
			s.writeError(w, r, err)
		}
		s.logRequest(r, w, start, err)
		label := ""
		if ws != nil {
			label = ws.name
		}
		s.metrics.request(label, ep.name, w, time.Since(start))
	})
}

// authenticate finds the key of r (nil without keys), or sets *err to the 401 that says what is
// wrong; it tells whether the request may go on.
func (s *Server) authenticate(w *responseRecorder, r *http.Request, err *error) bool {
	if s.cfg.Keys == nil {
		return true
	}
	auth := r.Header.Get("Authorization")
	scheme, token, _ := strings.Cut(auth, " ")
	switch {
	case auth == "":
		*err = errNoKey
	case !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(token) == "":
		*err = httpError{http.StatusUnauthorized, errors.New(`the Authorization header is not "Bearer KEY"`)}
	default:
		token = strings.TrimSpace(token)
		if w.key = s.cfg.Keys.Lookup(token); w.key == nil {
			w.keyID = apikeys.ID(token)
			*err = httpError{http.StatusUnauthorized, errors.New("unknown key")}
		} else {
			w.keyID = w.key.ID
		}
	}
	if *err != nil {
		w.Header().Set("WWW-Authenticate", `Bearer realm="strata"`)
		return false
	}
	return true
}

var errNoKey = httpError{http.StatusUnauthorized, errors.New("this server needs a key: send the header Authorization: Bearer KEY")}

// granted tells whether the request's key (if keys are asked for) grants workspace, or sets
// *err to the 403 that says it does not.
func (s *Server) granted(w *responseRecorder, workspace string, err *error) bool {
	if s.cfg.Keys == nil || w.key.Allows(workspace) {
		return true
	}
	*err = httpError{http.StatusForbidden, fmt.Errorf("the key %s is not granted the workspace %q", w.key.ID, workspace)}
	return false
}

// responseRecorder remembers the status and size of a response for the request log, and what
// the request was about (the mode; the question, logged at debug level only).
type responseRecorder struct {
	http.ResponseWriter
	status    int
	bytes     int
	mode      string
	question  string
	workspace string
	// key is the request's key (nil without keys or before it is checked), keyID the short hash
	// of the key it sent, known or not.
	key   *apikeys.Key
	keyID string
	// streaming: an NDJSON answer has begun (status 200 sent), so an error can only be its last
	// line.
	streaming bool
}

// Unwrap lets http.ResponseController reach the connection's writer, to flush a streamed answer.
func (w *responseRecorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *responseRecorder) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *responseRecorder) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += n
	return n, err
}

// logRequest writes one line per request: method, path, status, duration and size; the query's
// mode; the error for 4xx (warn) and 5xx (error). The question stays out at info level: it is
// the user's data, and request logs are often kept and shipped where the store is not.
func (s *Server) logRequest(r *http.Request, w *responseRecorder, start time.Time, err error) {
	ev := s.log.Info()
	switch {
	case w.status >= 500:
		ev = s.log.Error()
	case w.status >= 400:
		ev = s.log.Warn()
	}
	ev = ev.Str("method", r.Method).Str("path", r.URL.Path).Int("status", w.status).
		Float64("duration_ms", float64(time.Since(start).Microseconds())/1000).Int("bytes", w.bytes)
	if w.workspace != "" {
		ev = ev.Str("workspace", w.workspace)
	}
	if w.mode != "" {
		ev = ev.Str("mode", w.mode)
	}
	if w.keyID != "" {
		ev = ev.Str("key", w.keyID)
	}
	if err != nil {
		ev = ev.Err(err)
	}
	ev.Msg("request")
	if w.question != "" {
		s.log.Debug().Str("path", r.URL.Path).Str("question", w.question).Msg("request question")
	}
}

// statusClientClosed is the status logged for a request whose client hung up before the answer
// (nginx's 499); no standard status says it.
const statusClientClosed = 499

// errorBody is an error answer: {"error", "code"}, code being the HTTP status.
type errorBody struct {
	Error string `json:"error"`
	Code  int    `json:"code"`
}

// httpError is an error with its HTTP status.
type httpError struct {
	status int
	err    error
}

func (e httpError) Error() string { return e.err.Error() }
func (e httpError) Unwrap() error { return e.err }

// writeError answers {"error", "code"} with the status err calls for (errorStatus).
func (s *Server) writeError(w *responseRecorder, r *http.Request, err error) {
	status := errorStatus(r, err)
	if status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", "1")
	}
	s.writeJSON(w, r, status, errorBody{Error: err.Error(), Code: status})
}

// errorStatus is the status err calls for: its own, 504 past the request timeout, 499 when the
// client went away, 503 for a store that cannot be opened, 500 otherwise.
func errorStatus(r *http.Request, err error) int {
	var he httpError
	var unavailable errUnavailable
	switch {
	case errors.As(err, &he):
		return he.status
	case errors.Is(context.Cause(r.Context()), errRequestTimeout):
		return http.StatusGatewayTimeout
	case errors.Is(err, context.Canceled) && r.Context().Err() != nil:
		// The client went away; nobody reads this answer, but the log says why the query stopped.
		return statusClientClosed
	case errors.As(err, &unavailable):
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}

// writeStreamError ends a streamed answer with the line {"error", "code"}, code being the status
// the error would have had before the stream began.
func (s *Server) writeStreamError(w *responseRecorder, r *http.Request, err error) {
	status := errorStatus(r, err)
	s.writeLine(w, r, errorBody{Error: err.Error(), Code: status})
	// The response went out as 200; the request log says how it ended.
	w.status = status
}

// ndjsonType is the media type of a streamed answer: one JSON object per line.
const ndjsonType = "application/x-ndjson"

// writeLine writes v as one line of a streamed answer, starting the stream (status 200) when it
// has not begun, and flushes it to the client.
func (s *Server) writeLine(w *responseRecorder, r *http.Request, v any) {
	if !w.streaming {
		w.streaming = true
		w.Header().Set("Content-Type", ndjsonType)
		w.WriteHeader(http.StatusOK)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		s.log.Error().Err(err).Str("path", r.URL.Path).Msg("encode response line")
		buf.Reset()
		fmt.Fprintf(&buf, "{\"error\":%q,\"code\":%d}\n", "encode the response: "+err.Error(), http.StatusInternalServerError)
	}
	if _, err := w.Write(buf.Bytes()); err != nil {
		s.log.Debug().Err(err).Str("path", r.URL.Path).Msg("write response") // the client went away
		return
	}
	if err := http.NewResponseController(w).Flush(); err != nil {
		s.log.Debug().Err(err).Str("path", r.URL.Path).Msg("flush response")
	}
}

// streamLine is a line of a streamed answer before its last: a piece of the answer's text, or
// a reset that withdraws the pieces before it (retrieval.Delta).
type streamLine struct {
	Delta string `json:"delta,omitempty"`
	Reset bool   `json:"reset,omitempty"`
}

func (s *Server) writeJSON(w *responseRecorder, r *http.Request, status int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		s.log.Error().Err(err).Str("path", r.URL.Path).Msg("encode response")
		status = http.StatusInternalServerError
		buf.Reset()
		fmt.Fprintf(&buf, "{\"error\":%q,\"code\":%d}\n", "encode the response: "+err.Error(), status)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	if r.Method == http.MethodHead {
		return
	}
	if _, err := w.Write(buf.Bytes()); err != nil {
		s.log.Debug().Err(err).Str("path", r.URL.Path).Msg("write response") // the client went away
	}
}

// queryOutput is the object POST /query answers with: query --json's (cmd/strata's
// TestServeMatchesCLI holds the two the same).
type queryOutput struct {
	*retrieval.Result
	Warnings []string `json:"warnings,omitempty"`
}

// queryRequest is the body of POST /query: query's flags, in snake case. Absent fields take the
// mode's defaults, as absent flags do; entities and max_context_tokens of 0 also mean the mode's
// default, as with the flags.
type queryRequest struct {
	Question         string `json:"question"`
	Mode             string `json:"mode"`
	TopK             *int   `json:"top_k"`
	Entities         int    `json:"entities"`
	MaxContextTokens int    `json:"max_context_tokens"`
	ContextOnly      bool   `json:"context_only"`
	// Stream asks for the answer as NDJSON lines while it is written (see the README).
	Stream bool `json:"stream"`
}

// options turns the request into validated retrieval options, naming the bad field.
func (q queryRequest) options() (retrieval.Options, error) {
	if strings.TrimSpace(q.Question) == "" {
		return retrieval.Options{}, errors.New(`"question" is missing or empty`)
	}
	if n := utf8.RuneCountInString(q.Question); n > MaxQuestionChars {
		return retrieval.Options{}, fmt.Errorf(`"question" must be at most %d characters, got %d`, MaxQuestionChars, n)
	}
	modeName := q.Mode
	if modeName == "" {
		modeName = retrieval.DefaultMode.String()
	}
	mode, err := retrieval.ParseMode(modeName)
	if err != nil {
		return retrieval.Options{}, fmt.Errorf(`"mode": %w`, err)
	}
	return retrieval.NewOptions(mode, retrieval.Overrides{TopK: q.TopK, Entities: q.Entities,
		MaxContextTokens: q.MaxContextTokens, ContextOnly: q.ContextOnly})
}

// decodeQuery reads one JSON object with known fields only from a body of at most maxQueryBody
// bytes.
func decodeQuery(w http.ResponseWriter, r *http.Request) (queryRequest, error) {
	var q queryRequest
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxQueryBody))
	dec.DisallowUnknownFields()
	err := dec.Decode(&q)
	if err == nil {
		var tooLarge *http.MaxBytesError
		switch _, terr := dec.Token(); {
		case errors.As(terr, &tooLarge):
			err = terr
		case terr != io.EOF:
			err = errors.New("unexpected data after the JSON object")
		}
	}
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return q, httpError{http.StatusRequestEntityTooLarge, fmt.Errorf("request body larger than %d bytes", tooLarge.Limit)}
	case errors.Is(err, io.EOF):
		return q, httpError{http.StatusBadRequest, errors.New(`empty request body; send a JSON object such as {"question": "..."}`)}
	case err != nil:
		return q, httpError{http.StatusBadRequest, fmt.Errorf("request body: %w", err)}
	}
	return q, nil
}

// query answers POST /query with query --json's object. LLM usage is counted per request.
func (s *Server) query(w *responseRecorder, r *http.Request, ws *workspace) error {
	q, err := decodeQuery(w, r)
	if err != nil {
		return err
	}
	w.mode, w.question = q.Mode, q.Question
	opt, err := q.options()
	if err != nil {
		return httpError{http.StatusBadRequest, err}
	}
	w.mode = opt.Mode.String()
	st, release, err := s.store(r.Context(), ws)
	if err != nil {
		return err
	}
	defer release()
	// The ingest state (a few metadata reads, a round trip each on Neo4j) is read while the
	// query runs: neither needs the other. Both read in one scope, in which a store that
	// keeps copies reads the state with the generations it checks anyway.
	r = r.WithContext(graph.WithReadScope(r.Context()))
	var state graph.IngestState
	stateErr := make(chan error, 1)
	go func() {
		var err error
		state, err = graph.ReadIngestState(r.Context(), st.Engine.Store)
		stateErr <- err
	}()
	res, err := s.answerQuery(r, w, ws, st, q, opt)
	if stErr := <-stateErr; stErr != nil {
		return stErr
	}
	s.metrics.ingestState(ws.name, state)
	if err != nil {
		return err
	}
	out := queryOutput{Result: res, Warnings: state.Warnings()}
	if q.Stream {
		s.writeLine(w, r, out)
		return nil
	}
	s.writeJSON(w, r, http.StatusOK, out)
	return nil
}

// answerQuery runs the query of a POST /query through the engine of st, with the request's
// LLM usage in the result.
func (s *Server) answerQuery(r *http.Request, w *responseRecorder, ws *workspace, st *Store, q queryRequest, opt retrieval.Options) (*retrieval.Result, error) {
	meter := llm.NewMeter()
	ctx := llm.WithMeter(r.Context(), meter)
	// Counted whether the query succeeds or not: a failed or abandoned query's calls cost too.
	defer func() { s.metrics.usage(ws.name, meter.Stats().Total) }()
	if q.Stream {
		// The stream begins with the first piece, so that a query failing before it (a bad
		// option, retrieval) is answered with its status as without streaming.
		ctx = retrieval.WithAnswerStream(ctx, func(d retrieval.Delta) {
			s.writeLine(w, r, streamLine{Delta: d.Text, Reset: d.Reset})
		})
	}
	res, err := st.Engine.Query(ctx, q.Question, opt)
	if err != nil {
		if errors.Is(err, retrieval.ErrEmptyQuery) {
			return nil, httpError{http.StatusBadRequest, err}
		}
		return nil, err
	}
	u := meter.Stats().Total
	res.Usage = retrieval.Usage{LLMCalls: u.LLMCalls, PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, EmbeddingCalls: u.EmbeddingCalls}
	return res, nil
}

// status answers GET /status with status --json's object (without its integrity check, which
// reads the whole file: run strata status for that).
func (s *Server) status(w *responseRecorder, r *http.Request, ws *workspace) error {
	st, release, err := s.store(r.Context(), ws)
	if err != nil {
		return err
	}
	defer release()
	out, err := st.Status(r.Context())
	if err != nil {
		return err
	}
	s.writeJSON(w, r, http.StatusOK, out)
	return nil
}

// healthz answers 200 once every workspace's store is open (and opens those that are not), 503
// naming one that cannot be: a readiness check, which also tells that the process is alive.
// "warm" says whether every store has loaded what it keeps in memory: until then they answer,
// but their first queries are slower.
func (s *Server) healthz(w *responseRecorder, r *http.Request, _ *workspace) error {
	warm := true
	for _, name := range s.names() {
		st, release, err := s.store(r.Context(), s.workspaces[name])
		if err != nil {
			if len(s.workspaces) > 1 || name != DefaultWorkspace {
				err = fmt.Errorf("workspace %s: %w", name, err)
			}
			return err
		}
		warm = warm && (st.Warm == nil || st.Warm())
		release()
	}
	s.writeJSON(w, r, http.StatusOK, healthOutput{Status: "ok", Warm: warm})
	return nil
}

// healthOutput is GET /healthz's object.
type healthOutput struct {
	Status string `json:"status"`
	Warm   bool   `json:"warm"`
}
