// Package servertest holds what tests of strata serve's HTTP API share: the server's own
// tests (internal/server) and the CLI's, which compare it with strata query.
package servertest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// Do sends a request and returns the status, the headers and the body parsed as one JSON
// object, failing t when the body is not exactly one JSON object or not labelled as JSON.
func Do(t testing.TB, method, url, body string) (int, http.Header, map[string]any) {
	t.Helper()
	return DoKey(t, method, url, body, "")
}

// DoKey is Do with the header Authorization: Bearer key, unless key is "".
func DoKey(t testing.TB, method, url, body, key string) (int, http.Header, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("%s %s: Content-Type %q", method, url, ct)
	}
	if method == http.MethodHead {
		return resp.StatusCode, resp.Header, nil
	}
	var v map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&v); err != nil || dec.More() {
		t.Fatalf("%s %s: body is not one JSON object (%v): %q", method, url, err, raw)
	}
	return resp.StatusCode, resp.Header, v
}

// Metrics reads GET url (a /metrics endpoint) with key and returns its samples, each under its
// series as the text format writes it: `name{label="value",...}` with the labels in name
// order, or the bare name.
func Metrics(t testing.TB, url, key string) map[string]float64 {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain; version=0.0.4") {
		t.Fatalf("GET %s: %d %s: %s", url, resp.StatusCode, resp.Header.Get("Content-Type"), raw)
	}
	samples := map[string]float64{}
	for _, line := range strings.Split(string(raw), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if i < 0 || err != nil {
			t.Fatalf("GET %s: a line that is not a sample: %q", url, line)
		}
		samples[line[:i]] = v
	}
	return samples
}
