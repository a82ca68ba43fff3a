package llm

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// errEmptyResponse is returned for a 200 answer without choices or data, which some servers
// send while overloaded; it is retried.
var errEmptyResponse = errors.New("empty response from the API")

// maxRetryAfter bounds how long a server may make us wait for one retry.
const maxRetryAfter = 10 * time.Minute

// statusOf returns the HTTP status carried by a go-openai error, or 0.
func statusOf(err error) int {
	var apiErr *openai.APIError
	if errors.As(err, &apiErr) {
		return apiErr.HTTPStatusCode
	}
	var reqErr *openai.RequestError
	if errors.As(err, &reqErr) {
		return reqErr.HTTPStatusCode
	}
	return 0
}

// retryable reports whether err is worth another attempt: rate limits, server errors, time-outs,
// dropped connections and garbled bodies are; client errors (bad request, auth, unknown model)
// and exhausted quotas are not.
func retryable(err error) bool {
	var p permanent
	var o *ContextOverflowError
	if err == nil || errors.Is(err, context.Canceled) || errors.As(err, &p) || errors.As(err, &o) {
		return false
	}
	if status := statusOf(err); status != 0 {
		switch {
		case status == http.StatusTooManyRequests:
			var apiErr *openai.APIError
			if errors.As(err, &apiErr) && (apiErr.Code == "insufficient_quota" || apiErr.Type == "insufficient_quota") {
				return false // billing, not rate: waiting will not help
			}
			return true
		case status == http.StatusRequestTimeout, status == http.StatusConflict, status == 425, status >= 500:
			return true
		default:
			return false
		}
	}
	if errors.Is(err, errEmptyResponse) || errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.EPIPE) {
		return true
	}
	var netErr net.Error
	if errors.As(err, &netErr) {
		return true
	}
	var syntaxErr *json.SyntaxError
	return errors.As(err, &syntaxErr)
}

// maxUnreachableRetries caps the retries of a request that found no server at all. A server
// that is restarting comes back within seconds; a wrong OPENAI_BASE_URL never does, and a user
// should hear so in seconds rather than after the full backoff of about a minute.
const maxUnreachableRetries = 2

// unreachable reports whether err means nothing answered at the address: the connection was
// refused or the host name does not resolve.
func unreachable(err error) bool {
	var dnsErr *net.DNSError
	return errors.Is(err, syscall.ECONNREFUSED) || (errors.As(err, &dnsErr) && dnsErr.IsNotFound)
}

// retryAfter reads how long the server asked us to wait: OpenAI's retry-after-ms, or
// Retry-After in seconds or as an HTTP date. It returns 0 when there is no usable hint.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if h == nil {
		return 0
	}
	var d time.Duration
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			d = time.Duration(ms * float64(time.Millisecond))
		}
	}
	if v := strings.TrimSpace(h.Get("Retry-After")); d == 0 && v != "" {
		if s, err := strconv.ParseFloat(v, 64); err == nil {
			if s > 0 {
				d = time.Duration(s * float64(time.Second))
			}
		} else if t, err := http.ParseTime(v); err == nil {
			d = t.Sub(now)
		}
	}
	if d <= 0 {
		return 0
	}
	return min(d, maxRetryAfter)
}

// backoff returns the wait before retry number attempt (0-based): the server's hint when it gave
// one (plus up to 10 % jitter so waiters do not return in lockstep), else exponential backoff
// with jitter between half and all of base·2^attempt, capped.
func (c *Client) backoff(attempt int, hint time.Duration) time.Duration {
	if hint > 0 {
		return hint + time.Duration(rand.Float64()*0.1*float64(hint))
	}
	d := c.cfg.RetryMaxDelay
	if attempt < 30 {
		d = min(c.cfg.RetryBaseDelay<<attempt, c.cfg.RetryMaxDelay)
	}
	return d/2 + time.Duration(rand.Float64()*float64(d/2))
}

// retryHint says what a user can change when attempts keep failing this way.
func retryHint(err error, status int) string {
	switch {
	case status == http.StatusTooManyRequests:
		return "rate limited: lower --llm-concurrency or set --llm-rpm/--llm-tpm"
	case status >= 500:
		return "server error: see the server's log"
	case unreachable(err):
		return "no server at the address: check OPENAI_BASE_URL"
	case errors.Is(err, errEmptyResponse):
		return "empty answer: the server may be overloaded"
	}
	return "connection trouble"
}
