package fakeopenai

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"
)

// TestBatchAPI drives the fake's Batch API with go-openai's helpers, which follow OpenAI's
// shapes: upload, create, poll until the job ends as BatchOptions say, and read the output and
// error files line by line.
func TestBatchAPI(t *testing.T) {
	tests := []struct {
		name      string
		opts      BatchOptions
		status    string
		answered  int // lines with a 200 response
		errLines  int // lines in the error file
		errorCode string
	}{
		{name: "completed", status: "completed", answered: 4},
		{name: "slow", opts: BatchOptions{Polls: 2}, status: "completed", answered: 4},
		{name: "every line fails", opts: BatchOptions{LineErrorRate: 1}, status: "completed", errLines: 4},
		{name: "expired", opts: BatchOptions{End: "expired"}, status: "expired", answered: 2, errLines: 2, errorCode: "batch_expired"},
		{name: "failed", opts: BatchOptions{End: "failed"}, status: "failed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(t, Options{Batch: tc.opts})
			srv := httptest.NewServer(s)
			defer srv.Close()
			cfg := openai.DefaultConfig("sk-fake")
			cfg.BaseURL = srv.URL + "/v1"
			api := openai.NewClientWithConfig(cfg)
			ctx := context.Background()
			var up openai.UploadBatchFileRequest
			for i, q := range []string{"Who founded the guild?", "Who is Corvin Hale?", "When did Ilsa lead?", "Where is Saltmere?"} {
				up.AddChatCompletion(string(rune('a'+i)), openai.ChatCompletionRequest{Model: "gpt-4o-mini",
					Messages: []openai.ChatCompletionMessage{{Role: "user", Content: q}}})
			}
			created, err := api.CreateBatchWithUploadFile(ctx, openai.CreateBatchWithUploadFileRequest{
				Endpoint: openai.BatchEndpointChatCompletions, UploadBatchFileRequest: up})
			if err != nil {
				t.Fatal(err)
			}
			var got openai.BatchResponse
			polls := 0
			for got.Status == "" || got.Status == "in_progress" {
				if got, err = api.RetrieveBatch(ctx, created.ID); err != nil {
					t.Fatal(err)
				}
				polls++
			}
			if got.Status != tc.status || polls != tc.opts.Polls+1 {
				t.Fatalf("status %s after %d polls, want %s after %d", got.Status, polls, tc.status, tc.opts.Polls+1)
			}
			if tc.status == "failed" && (got.Errors == nil || len(got.Errors.Data) == 0 || got.OutputFileID != nil) {
				t.Errorf("a failed job without errors, or with an output file: %+v", got.Batch)
			}
			read := func(id *string) []outputLine {
				if id == nil {
					return nil
				}
				rc, err := api.GetFileContent(ctx, *id)
				if err != nil {
					t.Fatal(err)
				}
				defer rc.Close()
				var lines []outputLine
				sc := bufio.NewScanner(rc)
				for sc.Scan() {
					var l outputLine
					if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
						t.Fatalf("output line %q: %v", sc.Text(), err)
					}
					lines = append(lines, l)
				}
				return lines
			}
			out, errs := read(got.OutputFileID), read(got.ErrorFileID)
			if len(out) != tc.answered || len(errs) != tc.errLines {
				t.Fatalf("%d output lines and %d error lines, want %d and %d", len(out), len(errs), tc.answered, tc.errLines)
			}
			for _, l := range out {
				var body openai.ChatCompletionResponse
				if l.CustomID == "" || l.Response == nil || l.Response.StatusCode != 200 || json.Unmarshal(l.Response.Body, &body) != nil ||
					len(body.Choices) != 1 || body.Choices[0].Message.Content == "" || body.Usage.PromptTokens == 0 {
					t.Errorf("output line %+v", l)
				}
			}
			for _, l := range errs {
				switch {
				case tc.errorCode != "" && (l.Error == nil || l.Error.Code != tc.errorCode || l.Response != nil):
					t.Errorf("error line %+v, want %s", l, tc.errorCode)
				case tc.errorCode == "" && (l.Response == nil || l.Response.StatusCode != 500):
					t.Errorf("error line %+v, want a 500 response", l)
				}
			}
			lines := tc.answered // lines answered, by a model or by a drawn failure; not the expired
			if tc.errorCode == "" {
				lines += tc.errLines
			}
			if c := s.Counts(); c.BatchCreates != 1 || c.BatchPolls != polls || c.BatchLines != lines {
				t.Errorf("counts %+v", c)
			}
			if got.RequestCounts.Total != 4 {
				t.Errorf("request_counts %+v", got.RequestCounts)
			}
		})
	}
	// A GET of what is not served is a 404, as before.
	s := newServer(t, Options{})
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest("GET", "/props", nil))
	if rec.Code != 404 {
		t.Errorf("GET /props: %d", rec.Code)
	}
	rec = httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest("GET", "/v1/batches/batch_9", nil))
	if b, _ := io.ReadAll(rec.Body); rec.Code != 404 || !strings.Contains(string(b), "no such batch") {
		t.Errorf("GET of an unknown job: %d %s", rec.Code, b)
	}
}

// outputLine is a line of a job's output or error file.
type outputLine struct {
	CustomID string `json:"custom_id"`
	Response *struct {
		StatusCode int             `json:"status_code"`
		Body       json.RawMessage `json:"body"`
	} `json:"response"`
	Error *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}
