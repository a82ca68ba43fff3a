package server

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/stratarag/strata/cmd/strata/internal/server/apikeys"
	"github.com/stratarag/strata/cmd/strata/internal/server/servertest"
)

const (
	keyDefault = "default-key-0123456789"
	keyOther   = "other-key-abcdefghijkl"
	keyAll     = "every-workspace-key-42"
)

// runKeys serves the handler of a server over open that asks for the test's keys.
func runKeys(t *testing.T, log io.Writer, open Opener) *httptest.Server {
	t.Helper()
	keys, err := apikeys.Parse(strings.NewReader(keyDefault + " default\n" + keyOther + " other\n" + keyAll + " *\n"))
	if err != nil {
		t.Fatal(err)
	}
	srv, err := New(zerolog.New(log), Config{Store: open, Keys: keys})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(func() {
		hs.Close()
		srv.Close()
	})
	return hs
}

// TestKeys: with keys, every endpoint but /healthz needs one (401 without, or with an unknown
// one, before anything else is looked at), and one granting the endpoint's workspace (403).
func TestKeys(t *testing.T) {
	var logBuf lockedBuffer
	hs := runKeys(t, &logBuf, func(context.Context) (*Store, error) {
		return &Store{Kind: "test", Close: func() {},
			Status: func(context.Context) (any, error) { return map[string]string{"store": "test"}, nil }}, nil
	})
	for _, tc := range []struct {
		name, method, path, body, key string
		status                        int
		msg                           string
	}{
		{"healthz needs none", "GET", "/healthz", "", "", 200, ""},
		{"healthz with a wrong one", "GET", "/healthz", "", "wrong-key-0000000000", 200, ""},
		{"status without", "GET", "/status", "", "", 401, "this server needs a key"},
		{"query without", "POST", "/query", `{"question": "x"}`, "", 401, "this server needs a key"},
		{"unknown key", "GET", "/status", "", "wrong-key-0000000000", 401, "unknown key"},
		{"a granted key's prefix", "GET", "/status", "", keyDefault[:len(keyDefault)-1], 401, "unknown key"},
		{"unknown path without", "GET", "/admin", "", "", 401, "this server needs a key"},
		{"unknown path", "GET", "/admin", "", keyDefault, 404, "no such endpoint /admin"},
		{"key not granted", "GET", "/status", "", keyOther, 403, `is not granted the workspace "default"`},
		{"query not granted, bad body", "POST", "/query", `{"entities": 1e9}`, keyOther, 403, `is not granted the workspace "default"`},
		{"granted", "GET", "/status", "", keyDefault, 200, ""},
		{"granted all", "GET", "/status", "", keyAll, 200, ""},
		{"granted, bad body", "POST", "/query", `{"question": "x", "entities": 501}`, keyAll, 400, "entities must be at most 500"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, header, got := servertest.DoKey(t, tc.method, hs.URL+tc.path, tc.body, tc.key)
			if status != tc.status {
				t.Errorf("status %d, body %v; want %d", status, got, tc.status)
			}
			if msg, _ := got["error"].(string); !strings.Contains(msg, tc.msg) || strings.Contains(msg, tc.key) && tc.key != "" {
				t.Errorf("error %q, want it to contain %q and not the key", msg, tc.msg)
			}
			if (status == 401) != (header.Get("WWW-Authenticate") != "") {
				t.Errorf("%d with WWW-Authenticate %q", status, header.Get("WWW-Authenticate"))
			}
		})
	}
	// Other ways of sending a key that are not "Bearer KEY".
	for _, auth := range []string{"Basic " + keyAll, keyAll, "Bearer", "Bearer   "} {
		req, _ := http.NewRequest(http.MethodGet, hs.URL+"/status", nil)
		req.Header.Set("Authorization", auth)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("Authorization %q: %d, want 401", auth, resp.StatusCode)
		}
	}
	hs.Close()
	log := logBuf.String()
	for _, key := range []string{keyDefault, keyOther, keyAll, "wrong-key-0000000000"} {
		if strings.Contains(log, key) {
			t.Errorf("the log holds the key %s", key)
		}
		if !strings.Contains(log, `"key":"`+apikeys.ID(key)+`"`) {
			t.Errorf("the log does not name the key %s by its hash %s", key, apikeys.ID(key))
		}
	}
}
