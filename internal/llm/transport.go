package llm

import (
	"net/http"
	"time"
)

type metaKey struct{}

// respMeta receives the status and headers of the HTTP response to one attempt. go-openai turns
// error responses into errors without their headers, and Retry-After lives in the headers.
type respMeta struct {
	status int
	header http.Header
}

// capturingDoer is the go-openai HTTPDoer: it records response metadata into the respMeta that
// the attempt put in the request context.
type capturingDoer struct {
	client *http.Client
}

func (d capturingDoer) Do(req *http.Request) (*http.Response, error) {
	resp, err := d.client.Do(req)
	if m, ok := req.Context().Value(metaKey{}).(*respMeta); ok && resp != nil {
		m.status = resp.StatusCode
		m.header = resp.Header.Clone()
	}
	return resp, err
}

// newHTTPClient returns a client whose connection pool fits the configured concurrency: the
// default keeps two idle connections per host, which at concurrency 16 means constant
// reconnecting. Time-outs are per attempt, through the request context.
func newHTTPClient(concurrency int) *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns = max(100, 2*concurrency)
	t.MaxIdleConnsPerHost = 2 * concurrency
	t.IdleConnTimeout = 90 * time.Second
	return &http.Client{Transport: t}
}
