package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

type metaKey struct{}

// respMeta receives the status and headers of the HTTP response to one attempt, and the
// attempt's idle watchdog. go-openai turns error responses into errors without their headers,
// and Retry-After lives in the headers.
type respMeta struct {
	status int
	header http.Header
	idle   *watchdog
}

// capturingDoer is the HTTP client of every request: it records response metadata into the
// respMeta that the attempt put in the request context, and feeds the attempt's watchdog with
// every byte of the response, so that an answer that is still arriving is never abandoned.
type capturingDoer struct {
	client *http.Client
}

func (d capturingDoer) Do(req *http.Request) (*http.Response, error) {
	resp, err := d.client.Do(req)
	m, ok := req.Context().Value(metaKey{}).(*respMeta)
	if !ok || resp == nil {
		return resp, err
	}
	m.status = resp.StatusCode
	m.header = resp.Header.Clone()
	if m.idle != nil {
		m.idle.kick()
		resp.Body = &kickingBody{ReadCloser: resp.Body, w: m.idle}
	}
	return resp, err
}

// kickingBody resets the watchdog on every read that returned bytes.
type kickingBody struct {
	io.ReadCloser
	w *watchdog
}

func (b *kickingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		b.w.kick()
	}
	return n, err
}

// errIdle is the cause of an attempt the watchdog ended.
var errIdle = errors.New("no data from the server")

// watchdog cancels an attempt when the server has sent nothing for a whole period: neither
// response headers nor a byte of the body. A local server that streams an answer slowly is
// therefore never cut off, while one that stopped answering is noticed after one period.
type watchdog struct {
	period time.Duration
	cancel context.CancelCauseFunc

	mu     sync.Mutex
	timer  *time.Timer
	fired  bool
	kicked bool // the server has sent something
}

func newWatchdog(period time.Duration, cancel context.CancelCauseFunc) *watchdog {
	w := &watchdog{period: period, cancel: cancel}
	w.timer = time.AfterFunc(period, w.fire)
	return w
}

func (w *watchdog) fire() {
	w.mu.Lock()
	w.fired = true
	w.mu.Unlock()
	w.cancel(fmt.Errorf("%w for %s", errIdle, w.period))
}

func (w *watchdog) kick() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.kicked = true
	if !w.fired {
		w.timer.Reset(w.period)
	}
}

// heard reports whether the server has sent anything yet.
func (w *watchdog) heard() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.kicked
}

// stop ends the watchdog and reports whether it had fired.
func (w *watchdog) stop() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.timer.Stop()
	return w.fired
}

// newHTTPClient returns a client whose connection pool fits the configured concurrency: the
// default keeps two idle connections per host, which at concurrency 16 means constant
// reconnecting. Time-outs are per attempt, through the request context and its watchdog.
func newHTTPClient(concurrency int) *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns = max(100, 2*concurrency)
	t.MaxIdleConnsPerHost = 2 * concurrency
	t.IdleConnTimeout = 90 * time.Second
	return &http.Client{Transport: t}
}
