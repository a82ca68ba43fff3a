package fakeopenai

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"mime"
	"mime/multipart"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// BatchOptions configures the Batch API of the server (/v1/files and /v1/batches).
type BatchOptions struct {
	// Polls is how many retrievals of a job answer "in_progress" before it ends (0: the first
	// retrieval sees it ended).
	Polls int
	// End is the status a job ends in: "completed" (the default); "failed", refused whole with
	// an error and no file; "expired" or "cancelled", with the first half of its lines
	// answered and the rest in the error file as batch_expired or batch_cancelled.
	End string
	// LineErrorRate answers that fraction of lines with a 500 error line in the error file,
	// drawn per line body and attempt as the other faults are, so that the same request sent
	// again in a later job gets a fresh draw.
	LineErrorRate float64
}

// Batch statuses.
const (
	batchInProgress = "in_progress"
	batchCompleted  = "completed"
	batchFailed     = "failed"
	batchExpired    = "expired"
	batchCancelled  = "cancelled"
)

// SetBatch changes the Batch API options, for the jobs in progress too, so that a test can make
// a first run's jobs fail or hang and let the next run's complete.
func (s *Server) SetBatch(o BatchOptions) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.opts.Batch = o
}

type fakeFile struct {
	name    string
	purpose string
	data    []byte
	created int64
}

type fakeBatch struct {
	id, inputFileID    string
	status             string
	polls              int
	created            int64
	outputID, errorID  string
	total, done, fails int
	errors             any
}

// batchPath reports whether path is one of the Batch API's, and which: "files" or "batches",
// with what follows it.
func batchPath(path string) (kind, rest string, ok bool) {
	for _, k := range []string{"/files", "/batches"} {
		if i := strings.LastIndex(path, k); i >= 0 {
			rest := path[i+len(k):]
			if rest == "" || strings.HasPrefix(rest, "/") {
				return k[1:], strings.TrimPrefix(rest, "/"), true
			}
		}
	}
	return "", "", false
}

// batchAPI answers the Batch API's requests: upload and read files, create and retrieve jobs.
func (s *Server) batchAPI(w http.ResponseWriter, r *http.Request, body []byte) {
	kind, rest, _ := batchPath(r.URL.Path)
	switch {
	case kind == "files" && rest == "" && r.Method == http.MethodPost:
		s.uploadFile(w, r, body)
	case kind == "files" && strings.HasSuffix(rest, "/content") && r.Method == http.MethodGet:
		s.mu.Lock()
		f, ok := s.files[strings.TrimSuffix(rest, "/content")]
		s.mu.Unlock()
		if !ok {
			writeError(w, http.StatusNotFound, "invalid_request_error", "no such file "+rest)
			return
		}
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Write(f.data)
	case kind == "batches" && rest == "" && r.Method == http.MethodPost:
		s.createBatch(w, body)
	case kind == "batches" && rest != "" && r.Method == http.MethodGet:
		s.retrieveBatch(w, rest)
	default:
		writeError(w, http.StatusNotFound, "invalid_request_error", r.Method+" "+r.URL.Path+" is not served (fake)")
	}
}

func (s *Server) uploadFile(w http.ResponseWriter, r *http.Request, body []byte) {
	_, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || params["boundary"] == "" {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "want a multipart/form-data upload")
		return
	}
	form, err := multipart.NewReader(bytes.NewReader(body), params["boundary"]).ReadForm(256 << 20)
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "unreadable upload: "+err.Error())
		return
	}
	defer form.RemoveAll()
	purpose := strings.Join(form.Value["purpose"], "")
	fh := form.File["file"]
	if purpose != "batch" || len(fh) != 1 {
		writeError(w, http.StatusBadRequest, "invalid_request_error", `want purpose "batch" and one file`)
		return
	}
	f, err := fh[0].Open()
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "unreadable file")
		return
	}
	defer f.Close()
	var data bytes.Buffer
	data.ReadFrom(f)
	ff := fakeFile{name: fh[0].Filename, purpose: purpose, data: data.Bytes(), created: time.Now().Unix()}
	s.mu.Lock()
	s.counts.Files++
	id := fmt.Sprintf("file-%d", s.counts.Files)
	s.files[id] = ff
	s.mu.Unlock()
	writeJSON(w, fileObject(id, ff))
}

func fileObject(id string, f fakeFile) map[string]any {
	return map[string]any{"id": id, "object": "file", "bytes": len(f.data), "created_at": f.created,
		"filename": f.name, "purpose": f.purpose, "status": "processed"}
}

func (s *Server) createBatch(w http.ResponseWriter, body []byte) {
	var req struct {
		InputFileID      string `json:"input_file_id"`
		Endpoint         string `json:"endpoint"`
		CompletionWindow string `json:"completion_window"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "invalid batch request")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	f, ok := s.files[req.InputFileID]
	switch {
	case !ok || f.purpose != "batch":
		writeError(w, http.StatusBadRequest, "invalid_request_error", "no batch input file "+req.InputFileID)
		return
	case req.Endpoint != "/v1/chat/completions":
		writeError(w, http.StatusBadRequest, "invalid_request_error", "endpoint "+req.Endpoint+" is not served (fake)")
		return
	case req.CompletionWindow != "24h":
		writeError(w, http.StatusBadRequest, "invalid_request_error", "completion_window must be 24h")
		return
	}
	s.counts.BatchCreates++
	b := &fakeBatch{id: fmt.Sprintf("batch_%d", s.counts.BatchCreates), inputFileID: req.InputFileID,
		status: batchInProgress, created: time.Now().Unix()}
	b.total = bytes.Count(bytes.TrimSpace(f.data), []byte("\n")) + 1
	s.batches[b.id] = b
	writeJSON(w, b.object())
}

func (b *fakeBatch) object() map[string]any {
	o := map[string]any{"id": b.id, "object": "batch", "endpoint": "/v1/chat/completions", "errors": b.errors,
		"input_file_id": b.inputFileID, "completion_window": "24h", "status": b.status, "created_at": b.created,
		"output_file_id": nil, "error_file_id": nil,
		"request_counts": map[string]int{"total": b.total, "completed": b.done, "failed": b.fails}}
	if b.outputID != "" {
		o["output_file_id"] = b.outputID
	}
	if b.errorID != "" {
		o["error_file_id"] = b.errorID
	}
	return o
}

func (s *Server) retrieveBatch(w http.ResponseWriter, id string) {
	s.mu.Lock()
	b, ok := s.batches[id]
	if !ok {
		s.mu.Unlock()
		writeError(w, http.StatusNotFound, "invalid_request_error", "no such batch "+id)
		return
	}
	s.counts.BatchPolls++
	b.polls++
	opts := s.opts.Batch
	finish := b.status == batchInProgress && b.polls > opts.Polls
	input := s.files[b.inputFileID].data
	s.mu.Unlock()
	if finish {
		// Answered outside the lock: the chat handler takes it to count.
		s.finishBatch(b, input, opts)
	}
	s.mu.Lock()
	obj := b.object()
	s.mu.Unlock()
	writeJSON(w, obj)
}

// batchInputLine is one line of a job's input file.
type batchInputLine struct {
	CustomID string          `json:"custom_id"`
	Method   string          `json:"method"`
	URL      string          `json:"url"`
	Body     json.RawMessage `json:"body"`
}

// finishBatch ends a job as its options say, answering each line as the chat endpoint would.
func (s *Server) finishBatch(b *fakeBatch, input []byte, opts BatchOptions) {
	var lines []batchInputLine
	for _, raw := range bytes.Split(bytes.TrimSpace(input), []byte("\n")) {
		var l batchInputLine
		if err := json.Unmarshal(raw, &l); err != nil {
			s.endBatch(b, batchFailed, nil, nil, map[string]any{"object": "list", "data": []map[string]any{
				{"code": "invalid_json_line", "message": "a line is not JSON (fake)", "line": len(lines) + 1}}})
			return
		}
		lines = append(lines, l)
	}
	status := opts.End
	if status == "" {
		status = batchCompleted
	}
	if status == batchFailed {
		s.endBatch(b, batchFailed, nil, nil, map[string]any{"object": "list", "data": []map[string]any{
			{"code": "invalid_request", "message": "the batch failed validation (fake)", "line": 1}}})
		return
	}
	answered := len(lines)
	if status == batchExpired || status == batchCancelled {
		answered = len(lines) / 2
	}
	var out, errs bytes.Buffer
	for i, l := range lines {
		reqID := fmt.Sprintf("%s_req_%d", b.id, i+1)
		if i >= answered {
			writeLine(&errs, map[string]any{"id": reqID, "custom_id": l.CustomID, "response": nil,
				"error": map[string]any{"code": "batch_" + status, "message": "This request could not be executed before the job ended (fake)."}})
			continue
		}
		status, body := s.batchLine(l)
		line := map[string]any{"id": reqID, "custom_id": l.CustomID,
			"response": map[string]any{"status_code": status, "request_id": reqID, "body": json.RawMessage(body)}, "error": nil}
		if status == http.StatusOK {
			writeLine(&out, line)
		} else {
			writeLine(&errs, line)
		}
	}
	s.endBatch(b, status, out.Bytes(), errs.Bytes(), nil)
}

// batchLine answers one line: as the chat endpoint would, or with a drawn server error.
func (s *Server) batchLine(l batchInputLine) (int, []byte) {
	var probe struct {
		Stream bool `json:"stream"`
	}
	json.Unmarshal(l.Body, &probe)
	var buf buffered
	switch {
	case l.URL != "/v1/chat/completions" || l.Method != http.MethodPost:
		writeError(&buf, http.StatusBadRequest, "invalid_request_error", "a job's lines must POST /v1/chat/completions")
	case probe.Stream:
		writeError(&buf, http.StatusBadRequest, "invalid_request_error", "stream is not supported in a batch")
	case s.lineFails(l.Body):
		s.count(func(c *Counts) { c.BatchLineErrors++ })
		writeError(&buf, http.StatusInternalServerError, "server_error", "The server had an error processing this request (fake)")
	default:
		s.chat(&buf, l.Body)
	}
	s.count(func(c *Counts) { c.BatchLines++ })
	if buf.status == 0 {
		buf.status = http.StatusOK
	}
	return buf.status, bytes.TrimSpace(buf.body.Bytes())
}

// lineFails draws whether a line fails, per body and attempt.
func (s *Server) lineFails(body []byte) bool {
	s.mu.Lock()
	rate := s.opts.Batch.LineErrorRate
	key := sha256.Sum256(body)
	attempt := s.lineAttempts[key]
	s.lineAttempts[key]++
	s.mu.Unlock()
	return rate > 0 && s.draw([]byte("batchline"), key[:], []byte(strconv.Itoa(attempt))) < rate
}

func (s *Server) endBatch(b *fakeBatch, status string, out, errs []byte, batchErrors any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b.status, b.errors = status, batchErrors
	now := time.Now().Unix()
	if len(out) > 0 {
		s.counts.Files++
		b.outputID = fmt.Sprintf("file-%d", s.counts.Files)
		s.files[b.outputID] = fakeFile{name: "batch_output.jsonl", purpose: "batch_output", data: out, created: now}
		b.done = bytes.Count(out, []byte("\n"))
	}
	if len(errs) > 0 {
		s.counts.Files++
		b.errorID = fmt.Sprintf("file-%d", s.counts.Files)
		s.files[b.errorID] = fakeFile{name: "batch_errors.jsonl", purpose: "batch_output", data: errs, created: now}
		b.fails = bytes.Count(errs, []byte("\n"))
	}
	if status == batchFailed {
		b.fails = b.total
	}
}

func writeLine(w *bytes.Buffer, v any) {
	b, _ := json.Marshal(v)
	w.Write(b)
	w.WriteByte('\n')
}
