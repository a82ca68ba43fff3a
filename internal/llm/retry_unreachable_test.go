package llm

import (
	"context"
	"errors"
	"net"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestUnreachableServerFailsFast: a base URL where nothing listens gives up after
// maxUnreachableRetries retries, not after the whole retry budget.
func TestUnreachableServerFailsFast(t *testing.T) {
	srv := httptest.NewServer(nil)
	url := srv.URL
	srv.Close() // nothing listens there any more
	c, err := New(Config{BaseURL: url, APIKey: "k", MaxRetries: 6, RetryBaseDelay: time.Millisecond, RetryMaxDelay: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Embed(context.Background(), []string{"x"})
	if err == nil {
		t.Fatal("want an error")
	}
	if !strings.Contains(err.Error(), "gave up after 3 attempts") {
		t.Errorf("err = %v, want 3 attempts (1 + %d retries)", err, maxUnreachableRetries)
	}
	if st := c.Stats(); st.Total.Retries != maxUnreachableRetries {
		t.Errorf("retries = %d, want %d", st.Total.Retries, maxUnreachableRetries)
	}
}

func TestUnreachable(t *testing.T) {
	tests := []struct {
		err  error
		want bool
	}{
		{&net.OpError{Op: "dial", Err: errors.New("x")}, false},
		{&net.DNSError{Err: "no such host", Name: "nope.invalid", IsNotFound: true}, true},
		{&net.DNSError{Err: "timeout", Name: "slow", IsTimeout: true}, false},
		{errors.New("boom"), false},
		{&net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}, true},
	}
	for _, tc := range tests {
		if got := unreachable(tc.err); got != tc.want {
			t.Errorf("unreachable(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}
