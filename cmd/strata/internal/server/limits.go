package server

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"time"

	"golang.org/x/time/rate"

	"github.com/stratarag/strata/cmd/strata/internal/server/apikeys"
)

// errRequestTimeout is the cause of a request's context that ran out of Config.RequestTimeout.
var errRequestTimeout = errors.New("request timeout")

// newLimiters returns a limiter of r per second per key, one for all requests without keys; nil
// when r is 0.
func newLimiters(r float64, keys *apikeys.Set) map[string]*rate.Limiter {
	if r == 0 {
		return nil
	}
	burst := max(1, int(r))
	limiters := map[string]*rate.Limiter{}
	if keys == nil {
		limiters[""] = rate.NewLimiter(rate.Limit(r), burst)
		return limiters
	}
	for _, k := range keys.Keys() {
		limiters[k.ID] = rate.NewLimiter(rate.Limit(r), burst)
	}
	return limiters
}

// allow takes a request of the request's key from its rate, or sets *err to the 429 (with
// Retry-After) that says when the next one may come; it tells whether the request may go on.
func (s *Server) allow(w *responseRecorder, err *error) bool {
	lim := s.limiters[w.keyID]
	if lim == nil {
		return true
	}
	now := time.Now()
	res := lim.ReserveN(now, 1)
	wait := res.DelayFrom(now)
	if res.OK() && wait == 0 {
		return true
	}
	res.CancelAt(now)
	retry := max(1, int(math.Ceil(wait.Seconds())))
	w.Header().Set("Retry-After", strconv.Itoa(retry))
	who := "this server's"
	if w.keyID != "" {
		who = "the key " + w.keyID + "'s"
	}
	*err = httpError{http.StatusTooManyRequests, fmt.Errorf("over %s rate of %g requests per second: retry in %d s", who, s.cfg.Rate, retry)}
	return false
}

// answer runs the endpoint, a query only while fewer than MaxInflight are answered (503
// otherwise), and turns a request that ran out of its time into a 504 that says so.
func (s *Server) answer(w *responseRecorder, r *http.Request, ep endpoint, ws *workspace) error {
	if ep.query {
		select {
		case s.inflight <- struct{}{}:
			defer func() { <-s.inflight }()
		default:
			return httpError{http.StatusServiceUnavailable, fmt.Errorf("%d queries are being answered, the most this server takes at once: retry shortly", s.cfg.MaxInflight)}
		}
	}
	err := ep.fn(w, r, ws)
	if err != nil && errors.Is(context.Cause(r.Context()), errRequestTimeout) {
		return httpError{http.StatusGatewayTimeout, fmt.Errorf("the request took longer than %s, the server's limit", s.cfg.RequestTimeout)}
	}
	return err
}
