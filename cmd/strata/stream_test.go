package main

import (
	"bufio"
	"context"
	"encoding/json"
	"github.com/stratarag/strata/cmd/strata/internal/server/servertest"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"
)

// writeLog keeps every Write apart, to tell an answer printed while it is written from one
// printed whole.
type writeLog struct {
	mu     sync.Mutex
	writes []string
}

func (w *writeLog) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writes = append(w.writes, string(b))
	return len(b), nil
}

func (w *writeLog) String() string { return strings.Join(w.writes, "") }

// runLogged is runCLI with stdout's writes kept apart.
func runLogged(t *testing.T, args ...string) (int, *writeLog, string) {
	t.Helper()
	var stdout writeLog
	var stderr lockedBuffer
	code := run(context.Background(), append([]string{"strata"}, args...), &stdout, &stderr)
	return code, &stdout, stderr.String()
}

// warningLines are the "strata: warning:" lines of stderr.
func warningLines(stderr string) []string {
	var w []string
	for _, line := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(line, "strata: warning:") {
			w = append(w, line)
		}
	}
	return w
}

const streamQuestion = "Who founded the Saltmere Cartographers' Guild?"

// streamReplies are answers a model may stream: its own, one with reasoning and a made-up
// citation (which the streamed text must not show), one cut at the token limit.
var streamReplies = []struct{ name, reply, finish string }{
	{"fake model's answer", "", ""},
	{"reasoning and a made-up citation", "<think>The annals? [doc:annals-of-vell]</think>\nIlsa Marrow founded it [doc:harbor-guild.md], as the annals say [doc:annals-of-vell].", "stop"},
	{"cut at the token limit", "Ilsa Marrow founded the guild [doc:harbor-guild.md] in the year", "length"},
}

// TestQueryStreamCLI: query --stream always prints the answer in pieces while it is written, and
// in the end exactly what --stream never prints, warnings included; --json stays one object.
func TestQueryStreamCLI(t *testing.T) {
	api := &answerAPI{}
	dir := llmIngested(t, api)
	for _, tc := range streamReplies {
		t.Run(tc.name, func(t *testing.T) {
			api.set(tc.reply, tc.finish, 0)
			code, whole, wholeErr := runLogged(t, "query", "--data-dir", dir, "--no-cache", "--stream", "never", streamQuestion)
			if code != 0 {
				t.Fatalf("--stream never: exit %d\n%s\n%s", code, whole, wholeErr)
			}
			code, streamed, streamedErr := runLogged(t, "query", "--data-dir", dir, "--no-cache", "--stream", "always", streamQuestion)
			if code != 0 {
				t.Fatalf("--stream always: exit %d\n%s\n%s", code, streamed, streamedErr)
			}
			if streamed.String() != whole.String() {
				t.Errorf("streamed output differs:\n%s\nprinted whole:\n%s", streamed, whole)
			}
			if w, s := warningLines(wholeErr), warningLines(streamedErr); !reflect.DeepEqual(w, s) {
				t.Errorf("warnings %q streamed, %q whole", s, w)
			}
			answer, _, _ := strings.Cut(whole.writes[0], "\n")
			if answer == "" || strings.Contains(answer, "doc:annals") || strings.Contains(answer, "think") {
				t.Fatalf("answer %q", answer)
			}
			// The answer is written in pieces, then its newline.
			n, text := 0, ""
			for ; n < len(streamed.writes) && text != answer; n++ {
				text += streamed.writes[n]
			}
			if text != answer || n < 2 || streamed.writes[n] != "\n" {
				t.Errorf("answer %q, streamed in %d writes: %q", answer, n, streamed.writes)
			}

			code, js, jsErr := runLogged(t, "query", "--data-dir", dir, "--no-cache", "--json", streamQuestion)
			if code != 0 || len(js.writes) != 1 {
				t.Fatalf("--json: exit %d, %d writes\n%s\n%s", code, len(js.writes), js, jsErr)
			}
			if got := decodeJSON[queryAnswer](t, "query", js.String()); got.Answer == nil || *got.Answer != answer {
				t.Errorf("--json answer %v, want %q", got.Answer, answer)
			}
		})
	}
}

// TestQueryStreamCLIErrors: a bad --stream, or --stream always with --json, is bad usage; an
// answer that fails half-way leaves what was streamed on its own line, then the error.
func TestQueryStreamCLIErrors(t *testing.T) {
	api := &answerAPI{}
	dir := llmIngested(t, api)
	code, out, errOut := runCLI(t, "query", "--data-dir", dir, "--stream", "sometimes", streamQuestion)
	if code != exitUsage || out != "" || !strings.Contains(errOut, "--stream: want auto, always or never") {
		t.Errorf("--stream sometimes: exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, _ = runCLI(t, "query", "--data-dir", dir, "--json", "--stream", "always", streamQuestion)
	if code != exitUsage || !strings.Contains(checkJSONError(t, out, exitUsage), "do not go together") {
		t.Errorf("--json --stream always: exit %d\n%s", code, out)
	}

	api.setBreak("Ilsa Marrow founded the guild [doc:harbor-guild.md].", 12)
	code, out, errOut = runCLI(t, "query", "--data-dir", dir, "--no-cache", "--stream", "always", streamQuestion)
	if code != exitFailure || out != "Ilsa Marrow\n" {
		t.Errorf("exit %d, stdout %q", code, out)
	}
	if !strings.Contains(errOut, "strata: generate the answer: ") || !strings.HasSuffix(errOut, "the model crashed (fake)\n") {
		t.Errorf("stderr does not end with the error:\n%s", errOut)
	}
}

// postStream posts a streamed query and returns the status, the content type and the lines.
func postStream(t *testing.T, url, body string) (int, string, []map[string]any) {
	t.Helper()
	resp, err := http.Post(url+"/query", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var lines []map[string]any
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("line %d is not a JSON object: %v\n%s", len(lines)+1, err, sc.Text())
		}
		lines = append(lines, m)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header.Get("Content-Type"), lines
}

// TestServeStream: POST /query with "stream": true answers NDJSON: pieces whose text is the
// answer's, then the object the request answers without "stream"; an answer that fails half-way
// ends with an error line; an error before the stream is an ordinary error.
func TestServeStream(t *testing.T) {
	api := &answerAPI{}
	dir := llmIngested(t, api)
	hs := serveFlags(t, "--data-dir", dir, "--no-cache")
	body := `{"question": "` + streamQuestion + `", "mode": "naive"}`
	streamBody := `{"question": "` + streamQuestion + `", "mode": "naive", "stream": true}`
	for _, tc := range streamReplies {
		t.Run(tc.name, func(t *testing.T) {
			api.set(tc.reply, tc.finish, 0)
			status, _, want := servertest.Do(t, http.MethodPost, hs.URL+"/query", body)
			if status != http.StatusOK {
				t.Fatalf("status %d: %v", status, want)
			}
			status, ctype, lines := postStream(t, hs.URL, streamBody)
			if status != http.StatusOK || ctype != "application/x-ndjson" || len(lines) < 3 {
				t.Fatalf("status %d, %s, %d lines: %v", status, ctype, len(lines), lines)
			}
			var text strings.Builder
			for i, l := range lines[:len(lines)-1] {
				d, ok := l["delta"].(string)
				if !ok || d == "" || len(l) != 1 {
					t.Errorf("line %d is no delta: %v", i+1, l)
				}
				text.WriteString(d)
			}
			got := lines[len(lines)-1]
			delete(got, "timings_ms")
			delete(want, "timings_ms")
			if !reflect.DeepEqual(got, want) {
				t.Errorf("last line\n%v\nwant\n%v", got, want)
			}
			if text.String() != want["answer"] {
				t.Errorf("deltas make %q, answer %q", text.String(), want["answer"])
			}
		})
	}

	t.Run("failed half-way", func(t *testing.T) {
		api.setBreak("Ilsa Marrow founded the guild [doc:harbor-guild.md].", 12)
		status, _, lines := postStream(t, hs.URL, streamBody)
		var text string
		for _, l := range lines[:max(0, len(lines)-1)] {
			d, _ := l["delta"].(string)
			text += d
		}
		if status != http.StatusOK || len(lines) < 2 || text != "Ilsa Marrow" {
			t.Fatalf("status %d, lines %v", status, lines)
		}
		last := lines[len(lines)-1]
		if msg, _ := last["error"].(string); !strings.Contains(msg, "the model crashed (fake)") || last["code"] != float64(http.StatusInternalServerError) || len(last) != 2 {
			t.Errorf("last line %v", last)
		}
	})

	t.Run("bad option", func(t *testing.T) {
		status, _, got := servertest.Do(t, http.MethodPost, hs.URL+"/query", `{"question": "x", "mode": "fast", "stream": true}`)
		if status != http.StatusBadRequest || got["code"] != float64(http.StatusBadRequest) {
			t.Errorf("status %d: %v", status, got)
		}
	})
}
