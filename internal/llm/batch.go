package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// Batch mode (Config.Batch) sends chat requests as OpenAI Batch API jobs: the requests go up as
// one JSONL file (POST /files, purpose "batch"), a job is created over it (POST /batches), polled
// (GET /batches/{id}) until it ends, and the answers are read from its output and error files
// (GET /files/{id}/content). OpenAI bills such requests at half the price.
//
// Callers do not change: stages call Chat concurrently and block on each answer. The batcher
// gathers the requests that wait at one time (a job goes when Config.BatchSize wait, or when
// none has joined for Config.BatchWait) and hands each caller its answer, which then goes
// through the accounting, judging and caching of a direct answer. So a stage's batch is as
// large as the number of its calls that can wait at once, which its own concurrency decides;
// batched requests bypass the client's concurrency and rate limits, which are about direct
// requests (the Batch API queues on its own).
//
// Every job is recorded on disk (<cache>/batches/<id>.json: its id and, per line, the custom_id,
// cache key and stage) as soon as it is created, and the record is removed once the answers
// are consumed. A run that died with jobs in flight leaves their records; the next run polls
// those jobs for the requests whose keys they hold instead of submitting them again.

// maxLineTries bounds how many jobs one request goes in: a line the server failed in a way
// worth retrying (a 5xx, a 429) goes again in the next job, at most this many times in all.
const maxLineTries = 3

// shownLines is how many custom_ids a BatchError names in its message.
const shownLines = 20

// Batch statuses the API reports; the last four end a job.
const (
	batchCompleted = "completed"
	batchFailed    = "failed"
	batchExpired   = "expired"
	batchCancelled = "cancelled"
)

// ErrBatchUnanswered is wrapped by the error of a call whose batch job ended without answering
// it (BatchError). Like ErrBudgetSpent it is a failure of the run, not of one document: the
// other calls of the job failed the same way, and the same command resumes.
var ErrBatchUnanswered = errors.New("batch job ended without answering")

// BatchError is the error of requests a batch job did not answer: the job failed (refused
// whole), expired or was cancelled. Answers that came are cached; the same command submits
// the rest again.
type BatchError struct {
	BatchID string
	Status  string   // failed, expired or cancelled
	Lines   []string // custom_ids of the requests not answered, sorted
	Reason  string   // what the server said
}

func (e *BatchError) Unwrap() error { return ErrBatchUnanswered }

func (e *BatchError) Error() string {
	names := e.Lines
	more := ""
	if len(names) > shownLines {
		names, more = names[:shownLines], fmt.Sprintf(" and %d more", len(e.Lines)-shownLines)
	}
	reason := ""
	if e.Reason != "" {
		reason = ": " + e.Reason
	}
	return fmt.Sprintf("batch job %s %s with %d request(s) unanswered (%s%s)%s; the answers that came are cached, and the same command submits the rest again",
		e.BatchID, e.Status, len(e.Lines), strings.Join(names, ", "), more, reason)
}

// BatchStats counts the batch jobs of a client.
type BatchStats struct {
	Jobs    int `json:"jobs"`    // jobs submitted
	Lines   int `json:"lines"`   // requests submitted in them
	Polls   int `json:"polls"`   // polls of jobs in flight
	Resumed int `json:"resumed"` // jobs a previous run submitted, polled by this one
	Retried int `json:"retried"` // lines failed by the server and sent again in a later job
}

// errAnsweredMeanwhile says that a batch job consumed since the caller's cache lookup put the
// answer in the cache: the caller reads it there.
var errAnsweredMeanwhile = errors.New("answered by a batch job meanwhile")

// batcher gathers chat requests into batch jobs and hands their answers back.
type batcher struct {
	c   *Client
	api *openai.Client // files and batches, at the chat endpoint
	dir string         // where job records live; "" without a cache (no resume)

	mu       sync.Mutex
	lines    map[string]*batchLine // by cache key: every request pending, in a job, or recorded
	pending  []*batchLine          // not yet in a job, in arrival order
	oldest   time.Time             // when the first pending line arrived
	timer    *time.Timer
	inflight int // jobs submitted and not yet consumed, this run's
	stats    BatchStats
}

// batchLine is one request of a job: one cache key, whatever number of callers wait for it.
type batchLine struct {
	key       string
	stage     string
	body      chatWire
	promptEst int
	charge    int // predicted tokens: prompt estimate and the answer's cap
	tries     int // jobs it went in already
	customID  string
	job       *batchJob // nil while pending
	waiters   []chan lineResult
}

// lineResult is what a waiter gets: the answer, or why there is none. shared marks a waiter
// that is not the first of its line: another caller accounts for the call.
type lineResult struct {
	answer wireAnswer
	err    error
	shared bool
}

// batchJob is a job in flight, this run's or a recorded one.
type batchJob struct {
	id        string
	lines     map[string]*batchLine // by custom_id
	reserved  int                   // budget held for it while live
	live      bool                  // this run's, submitted and counted in batcher.inflight
	recovered bool
	polling   bool
	stop      context.CancelFunc // ends the polling, once nobody waits for the job
}

// jobRecord is the on-disk record of a job in flight.
type jobRecord struct {
	ID          string       `json:"id"`
	Model       string       `json:"model"`
	InputFileID string       `json:"input_file_id"`
	Created     time.Time    `json:"created"`
	Lines       []recordLine `json:"lines"`
}

type recordLine struct {
	CustomID string `json:"custom_id"`
	Key      string `json:"key"`
	Stage    string `json:"stage"`
}

// newBatcher returns the batcher of c and loads the records of jobs a previous run left.
func newBatcher(c *Client, doer capturingDoer) (*batcher, error) {
	oc := openai.DefaultConfig(c.cfg.APIKey)
	oc.BaseURL = c.cfg.BaseURL
	oc.HTTPClient = doer
	b := &batcher{c: c, api: openai.NewClientWithConfig(oc), lines: map[string]*batchLine{}}
	if c.cfg.CacheDir == "" {
		return b, nil
	}
	b.dir = filepath.Join(c.cfg.CacheDir, "batches")
	entries, err := os.ReadDir(b.dir)
	if errors.Is(err, os.ErrNotExist) {
		return b, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read batch job records: %w", err)
	}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(b.dir, e.Name()))
		if err != nil {
			return nil, fmt.Errorf("read batch job record: %w", err)
		}
		var rec jobRecord
		if err := json.Unmarshal(raw, &rec); err != nil || rec.ID == "" {
			c.warn(fmt.Errorf("ignore unreadable batch job record %s: %v", e.Name(), err))
			continue
		}
		if rec.Model != c.cfg.ChatModel {
			continue // another model's job: none of this run's keys can be in it
		}
		job := &batchJob{id: rec.ID, lines: map[string]*batchLine{}, recovered: true}
		for _, rl := range rec.Lines {
			if _, dup := b.lines[rl.Key]; dup {
				continue
			}
			l := &batchLine{key: rl.Key, stage: rl.Stage, customID: rl.CustomID, job: job, tries: 1}
			job.lines[rl.CustomID] = l
			b.lines[rl.Key] = l
		}
	}
	return b, nil
}

// Stats returns the batch counters.
func (b *batcher) Stats() BatchStats {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.stats
}

// chatBatched answers a request that missed the cache through a batch job.
func (c *Client) chatBatched(ctx context.Context, stage string, req ChatRequest, key string, body chatWire, promptEst, charge int) (ChatResponse, error) {
	recheck := true
	for {
		r, err := c.batch.do(ctx, stage, key, body, promptEst, charge, recheck)
		if errors.Is(err, errAnsweredMeanwhile) {
			if resp, ok := c.fromCache(ctx, stage, req, key); ok {
				return resp, nil
			}
			recheck = false // a damaged entry: asked again
			continue
		}
		if err != nil {
			return ChatResponse{}, fmt.Errorf("chat completion (%s, model %s): %w", stage, c.cfg.ChatModel, err)
		}
		if req.OnDelta != nil {
			req.OnDelta(strings.TrimSpace(r.answer.content))
		}
		if r.shared {
			// The same request waited twice: billed once, and the second caller is served
			// as from the cache.
			resp := responseOf(r.answer, r.answer.usage.PromptTokens, r.answer.usage.CompletionTokens)
			resp.Cached = true
			c.record(ctx, stage, StageUsage{CacheHits: 1, SavedTokens: resp.PromptTokens + resp.CompletionTokens})
			return resp, nil
		}
		return c.answered(ctx, stage, req, key, r.answer, r.answer.usage.PromptTokens, r.answer.usage.CompletionTokens), nil
	}
}

// do waits for the answer to the request under key: it joins the line of a job in flight (or a
// recorded one) that holds the key, or queues a new line for the next job.
func (b *batcher) do(ctx context.Context, stage, key string, body chatWire, promptEst, charge int, recheck bool) (lineResult, error) {
	b.mu.Lock()
	l, ok := b.lines[key]
	if !ok && recheck && b.c.cache != nil {
		// A job consumed since the caller's lookup may have cached the answer; checked under
		// the lock, which a job holds while it caches and forgets its lines.
		if _, hit, _ := b.c.cache.Get("chat", key); hit {
			b.mu.Unlock()
			return lineResult{}, errAnsweredMeanwhile
		}
	}
	if !ok {
		l = &batchLine{key: key, stage: stage}
		b.lines[key] = l
	}
	if l.body.Model == "" {
		// A recorded line has no body until a caller brings one: it is needed to send the
		// request again should the job fail it.
		l.body, l.promptEst, l.charge = body, promptEst, charge
	}
	if !ok {
		b.enqueue(l)
	}
	ch := make(chan lineResult, 1)
	l.waiters = append(l.waiters, ch)
	if j := l.job; j != nil && !j.polling {
		b.startPolling(j)
	}
	b.mu.Unlock()
	select {
	case r := <-ch:
		return r, r.err
	case <-ctx.Done():
		if r, delivered := b.leave(l, ch); delivered {
			return r, r.err // answered as the caller gave up: an answer paid for is not thrown away
		}
		return lineResult{}, ctx.Err()
	}
}

// leave removes a waiter that gave up. A pending line nobody waits for is dropped; a job nobody
// waits for any more stops being polled (its record stays, for the run that resumes). It
// reports the result when one was delivered meanwhile.
func (b *batcher) leave(l *batchLine, ch chan lineResult) (lineResult, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	i := -1
	for k, w := range l.waiters {
		if w == ch {
			i = k
		}
	}
	if i < 0 {
		return <-ch, true
	}
	l.waiters = append(l.waiters[:i], l.waiters[i+1:]...)
	if len(l.waiters) > 0 {
		return lineResult{}, false
	}
	if l.job == nil {
		for k, p := range b.pending {
			if p == l {
				b.pending = append(b.pending[:k], b.pending[k+1:]...)
				break
			}
		}
		delete(b.lines, l.key)
		return lineResult{}, false
	}
	for _, o := range l.job.lines {
		if len(o.waiters) > 0 {
			return lineResult{}, false
		}
	}
	if l.job.stop != nil {
		l.job.stop()
	}
	return lineResult{}, false
}

// enqueue adds l to the pending lines and sets when they go: at once when a job's worth wait,
// else after the quiet period, and no later than 5 quiet periods after the first of them.
// b.mu is held.
func (b *batcher) enqueue(l *batchLine) {
	now := time.Now()
	if len(b.pending) == 0 {
		b.oldest = now
	}
	b.pending = append(b.pending, l)
	d := b.c.cfg.BatchWait
	if len(b.pending) >= b.c.cfg.BatchSize {
		d = 0
	}
	d = max(0, min(d, b.oldest.Add(5*b.c.cfg.BatchWait).Sub(now)))
	b.schedule(d)
}

// schedule makes flush run after d. b.mu is held.
func (b *batcher) schedule(d time.Duration) {
	if b.timer == nil {
		b.timer = time.AfterFunc(d, b.flush)
		return
	}
	b.timer.Reset(d)
}

// flush submits the pending lines as one job, as many as fit Config.BatchSize and the token
// budget. When not even the first fits the budget, the lines wait for the jobs in flight to
// end (their answers may cost less than predicted) or, with none in flight, are refused.
func (b *batcher) flush() {
	b.mu.Lock()
	n := min(len(b.pending), b.c.cfg.BatchSize)
	k, sum := 0, 0
	for k < n && b.c.budget.fits(sum+b.pending[k].charge) {
		sum += b.pending[k].charge
		k++
	}
	if n > 0 && k == 0 {
		if b.inflight == 0 {
			b.refuseLocked()
		}
		b.mu.Unlock()
		return // a job in flight flushes again when it ends
	}
	take := append([]*batchLine(nil), b.pending[:k]...)
	b.pending = append(b.pending[:0:0], b.pending[k:]...)
	switch {
	case len(b.pending) >= b.c.cfg.BatchSize:
		b.schedule(0)
	case len(b.pending) > 0:
		// The rest wait for company as new lines do, unless the budget held them back: the
		// end of the job in flight flushes them.
		b.oldest = time.Now()
		b.schedule(b.c.cfg.BatchWait)
	}
	if len(take) == 0 {
		b.mu.Unlock()
		return
	}
	b.c.budget.reserve(sum)
	ctx, stop := context.WithCancel(context.Background())
	job := &batchJob{lines: map[string]*batchLine{}, reserved: sum, live: true, polling: true, stop: stop}
	for _, l := range take {
		id := l.stage + "-" + l.key[:16]
		for s := 2; job.lines[id] != nil; s++ {
			id = fmt.Sprintf("%s-%s-%d", l.stage, l.key[:16], s)
		}
		l.customID, l.job = id, job
		job.lines[id] = l
	}
	b.inflight++
	b.mu.Unlock()
	go b.run(ctx, job)
}

// refuseLocked fails every pending line with the budget's refusal. b.mu is held.
func (b *batcher) refuseLocked() {
	for _, l := range b.pending {
		err := b.c.budget.refusal(l.stage, l.charge)
		for _, w := range l.waiters {
			w <- lineResult{err: err}
		}
		delete(b.lines, l.key)
	}
	b.pending = nil
}

// run submits job and polls it until its answers are consumed.
func (b *batcher) run(ctx context.Context, job *batchJob) {
	if err := b.submit(ctx, job); err != nil {
		b.fail(job, err)
		return
	}
	b.poll(ctx, job, false)
}

// submit uploads job's lines, creates the job and records it.
func (b *batcher) submit(ctx context.Context, job *batchJob) error {
	b.mu.Lock()
	ids := make([]string, 0, len(job.lines))
	for id := range job.lines {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var buf bytes.Buffer
	rec := jobRecord{Model: b.c.cfg.ChatModel, Created: time.Now().UTC()}
	stages := map[string]int{}
	for _, id := range ids {
		l := job.lines[id]
		body := l.body
		body.Stream, body.StreamOptions = false, nil // a job's answers come whole
		line, err := json.Marshal(struct {
			CustomID string   `json:"custom_id"`
			Method   string   `json:"method"`
			URL      string   `json:"url"`
			Body     chatWire `json:"body"`
		}{id, http.MethodPost, string(openai.BatchEndpointChatCompletions), body})
		if err != nil {
			b.mu.Unlock()
			return fmt.Errorf("encode batch line %s: %w", id, err)
		}
		buf.Write(line)
		buf.WriteByte('\n')
		rec.Lines = append(rec.Lines, recordLine{CustomID: id, Key: l.key, Stage: l.stage})
		stages[l.stage]++
	}
	b.mu.Unlock()
	var file openai.File
	err := b.c.control(ctx, "upload the batch input file", func(actx context.Context) (err error) {
		file, err = b.api.CreateFileBytes(actx, openai.FileBytesRequest{Name: "strata-batch.jsonl", Bytes: buf.Bytes(), Purpose: openai.PurposeBatch})
		return err
	})
	if err != nil {
		return err
	}
	var created openai.BatchResponse
	err = b.c.control(ctx, "create the batch job", func(actx context.Context) (err error) {
		created, err = b.api.CreateBatch(actx, openai.CreateBatchRequest{
			InputFileID: file.ID, Endpoint: openai.BatchEndpointChatCompletions, CompletionWindow: "24h",
		})
		return err
	})
	if err != nil {
		return err
	}
	if created.ID == "" {
		return errors.New("create the batch job: the server returned no id")
	}
	rec.ID, rec.InputFileID = created.ID, file.ID
	b.mu.Lock()
	job.id = created.ID
	b.stats.Jobs++
	b.stats.Lines += len(ids)
	b.mu.Unlock()
	// Recorded whatever happens to ctx now: the job runs, and is paid for, on the server.
	if err := b.writeRecord(rec); err != nil {
		b.c.warn(fmt.Errorf("batch job %s cannot be resumed by a later run: %w", created.ID, err))
	}
	b.c.notice(fmt.Sprintf("batch job %s submitted: %d requests (%s)", created.ID, len(ids), stageCounts(stages)))
	return nil
}

// stageCounts writes "extract 12, report 3".
func stageCounts(m map[string]int) string {
	var parts []string
	for _, s := range SortStages(m) {
		parts = append(parts, fmt.Sprintf("%s %d", s, m[s]))
	}
	return strings.Join(parts, ", ")
}

// startPolling polls a job nobody was polling (a recorded one, or one whose waiters had all
// gone). b.mu is held.
func (b *batcher) startPolling(job *batchJob) {
	ctx, stop := context.WithCancel(context.Background())
	job.polling, job.stop = true, stop
	if job.recovered {
		job.recovered = false
		b.stats.Resumed++
		b.c.notice(fmt.Sprintf("batch job %s, submitted by an earlier run, polled for its %d requests", job.id, len(job.lines)))
	}
	go b.poll(ctx, job, true)
}

// poll retrieves job every Config.BatchPoll until it ends, then consumes its answers. It stops
// when ctx ends (nobody waits any more), leaving the job recorded.
func (b *batcher) poll(ctx context.Context, job *batchJob, now bool) {
	wait := b.c.cfg.BatchPoll
	if now {
		wait = 0
	}
	for {
		if err := sleep(ctx, wait); err != nil {
			b.paused(job)
			return
		}
		wait = b.c.cfg.BatchPoll
		var got openai.BatchResponse
		err := b.c.control(ctx, "poll batch job "+job.id, func(actx context.Context) (err error) {
			got, err = b.api.RetrieveBatch(actx, job.id)
			return err
		})
		if err != nil {
			switch {
			case ctx.Err() != nil:
				b.paused(job)
			case statusOf(err) == http.StatusNotFound:
				b.lost(job, err)
			default:
				// The job may still run: its record stays for the run that resumes.
				b.fail(job, err)
			}
			return
		}
		b.mu.Lock()
		b.stats.Polls++
		b.mu.Unlock()
		switch got.Status {
		case batchCompleted, batchFailed, batchExpired, batchCancelled:
			b.consume(ctx, job, got.Batch)
			return
		}
	}
}

// paused marks a job nobody polls any more. It stops holding budget and counting as in flight,
// so that no pending line waits for its end; should a caller come back for it, its answers are
// spent when they arrive.
func (b *batcher) paused(job *batchJob) {
	b.mu.Lock()
	job.polling = false
	b.releaseLocked(job)
	b.mu.Unlock()
}

// releaseLocked gives back what a live job holds. b.mu is held.
func (b *batcher) releaseLocked(job *batchJob) {
	if !job.live {
		return
	}
	job.live = false
	b.c.budget.settle(job.reserved)
	job.reserved = 0
	b.inflight--
	if len(b.pending) > 0 {
		b.schedule(0) // lines the budget held back may fit now
	}
}

// lost handles a recorded job the server does not know (another server, or one that forgot
// it): its record goes, and the requests waiting are queued anew.
func (b *batcher) lost(job *batchJob, err error) {
	b.c.warn(fmt.Errorf("batch job %s is unknown to the server; its waiting requests are submitted again: %w", job.id, err))
	b.mu.Lock()
	b.endJobLocked(job)
	for _, l := range job.lines {
		if len(l.waiters) > 0 && l.body.Model != "" {
			l.job = nil
			b.lines[l.key] = l
			b.enqueue(l)
		}
	}
	b.mu.Unlock()
	b.removeRecord(job.id)
}

// fail gives every waiter of job err. A job that was never created has no record; one whose
// polls failed keeps it, for the run that resumes.
func (b *batcher) fail(job *batchJob, err error) {
	b.mu.Lock()
	b.endJobLocked(job)
	for _, l := range job.lines {
		for _, w := range l.waiters {
			w <- lineResult{err: err}
		}
		l.waiters = nil
	}
	b.mu.Unlock()
}

// endJobLocked forgets job's lines and gives back its budget. b.mu is held.
func (b *batcher) endJobLocked(job *batchJob) {
	for _, l := range job.lines {
		if b.lines[l.key] == l {
			delete(b.lines, l.key)
		}
	}
	b.releaseLocked(job)
	if job.stop != nil {
		job.stop()
	}
}

// outcome is what a job's files say of one line.
type outcome struct {
	answer  wireAnswer
	err     error
	missing bool // expired or cancelled before it was answered
}

// consume reads the answers of an ended job and hands them out: each answer is spent against
// the budget, given to its callers (or, with none, counted and cached here), a line failed in
// a way worth retrying is queued for the next job, and the lines the job did not answer fail
// with a BatchError naming them. The record goes last, once the answers are in the cache.
func (b *batcher) consume(ctx context.Context, job *batchJob, got openai.Batch) {
	outcomes := map[string]outcome{}
	for _, id := range []*string{got.OutputFileID, got.ErrorFileID} {
		if id == nil || *id == "" {
			continue
		}
		if err := b.readFile(ctx, *id, outcomes); err != nil {
			if ctx.Err() != nil {
				b.paused(job)
				return
			}
			b.fail(job, fmt.Errorf("read the answers of batch job %s: %w", job.id, err))
			return
		}
	}
	var berr *BatchError
	b.mu.Lock()
	ids := make([]string, 0, len(job.lines))
	for id := range job.lines {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var requeue []*batchLine
	for _, id := range ids {
		l := job.lines[id]
		o, ok := outcomes[id]
		switch {
		case !ok || o.missing:
			if berr == nil {
				berr = &BatchError{BatchID: job.id, Status: got.Status, Reason: batchReason(got)}
			}
			berr.Lines = append(berr.Lines, id)
		case o.err == nil:
			p, c := b.c.billed(o.answer, l.promptEst)
			o.answer.usage = wireUsage{PromptTokens: p, CompletionTokens: c}
			b.c.budget.spend(p + c)
			if len(l.waiters) == 0 {
				// Nobody waits (a recorded job's line this run has not asked for yet, or a
				// caller gone): counted as the call it was, and cached for whoever asks.
				u := StageUsage{LLMCalls: 1, PromptTokens: p, CompletionTokens: c}
				resp := responseOf(o.answer, p, c)
				if resp.Truncated() {
					u.Truncated = 1
				}
				b.c.record(context.Background(), l.stage, u)
				b.c.storeChat(l.key, resp)
			}
			for i, w := range l.waiters {
				w <- lineResult{answer: o.answer, shared: i > 0}
			}
			l.waiters = nil
		case retryable(o.err) && l.tries+1 < maxLineTries && len(l.waiters) > 0 && l.body.Model != "":
			requeue = append(requeue, l)
			b.c.record(context.Background(), l.stage, StageUsage{Retries: 1})
			b.c.warn(fmt.Errorf("%s request %s failed in batch job %s (try %d of %d), sent again in the next job: %w",
				l.stage, id, job.id, l.tries+1, maxLineTries, o.err))
		default:
			err := fmt.Errorf("request %s of batch job %s: %w", id, job.id, o.err)
			if l.tries > 0 && retryable(o.err) {
				err = fmt.Errorf("%w (gave up after %d batch jobs)", err, l.tries+1)
			}
			b.c.record(context.Background(), l.stage, StageUsage{Failures: 1})
			for _, w := range l.waiters {
				w <- lineResult{err: err}
			}
			l.waiters = nil
		}
	}
	if berr != nil {
		for _, id := range berr.Lines {
			l := job.lines[id]
			b.c.record(context.Background(), l.stage, StageUsage{Failures: 1})
			for _, w := range l.waiters {
				w <- lineResult{err: berr}
			}
			l.waiters = nil
		}
	}
	b.endJobLocked(job)
	for _, l := range requeue {
		l.tries++
		l.job = nil
		b.lines[l.key] = l
		b.enqueue(l)
	}
	b.stats.Retried += len(requeue)
	b.mu.Unlock()
	b.removeRecord(job.id)
	done := fmt.Sprintf("batch job %s %s: %d requests", job.id, got.Status, len(ids))
	if berr != nil {
		done += fmt.Sprintf(", %d unanswered", len(berr.Lines))
	}
	if len(requeue) > 0 {
		done += fmt.Sprintf(", %d sent again", len(requeue))
	}
	b.c.notice(done)
}

// batchReason is what the server said of a job that did not complete.
func batchReason(got openai.Batch) string {
	if got.Errors == nil {
		return ""
	}
	var parts []string
	for _, e := range got.Errors.Data {
		s := e.Message
		if e.Code != "" {
			s = e.Code + ": " + s
		}
		if e.Line != nil {
			s = fmt.Sprintf("line %d: %s", *e.Line, s)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}

// outputLine is one line of a job's output or error file.
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

// readFile reads a job's output or error file into outcomes.
func (b *batcher) readFile(ctx context.Context, fileID string, outcomes map[string]outcome) error {
	var raw []byte
	err := b.c.control(ctx, "download batch file "+fileID, func(actx context.Context) error {
		rc, err := b.api.GetFileContent(actx, fileID)
		if err != nil {
			return err
		}
		defer rc.Close()
		raw, err = io.ReadAll(rc)
		return err
	})
	if err != nil {
		return err
	}
	for n, line := range bytes.Split(raw, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var ol outputLine
		if err := json.Unmarshal(line, &ol); err != nil {
			return fmt.Errorf("line %d of batch file %s: %w", n+1, fileID, err)
		}
		outcomes[ol.CustomID] = lineOutcome(ol)
	}
	return nil
}

// lineOutcome reads one output line as an answer or an error the retry rules understand.
func lineOutcome(ol outputLine) outcome {
	switch {
	case ol.Response != nil && ol.Response.StatusCode/100 == 2:
		var ch chatChunk
		if err := json.Unmarshal(ol.Response.Body, &ch); err != nil {
			return outcome{err: fmt.Errorf("read chat answer: %w", err)}
		}
		a, err := collect(wireAnswer{}, ch, ol.Response.StatusCode, nil)
		if err == nil && a.content == "" && a.finishReason == "" {
			err = errEmptyResponse
		}
		return outcome{answer: a, err: err}
	case ol.Response != nil && ol.Response.StatusCode != 0:
		return outcome{err: apiError(ol.Response.StatusCode, ol.Response.Body)}
	case ol.Error != nil && (ol.Error.Code == "batch_expired" || ol.Error.Code == "batch_cancelled"):
		return outcome{missing: true}
	case ol.Error != nil:
		status := http.StatusBadRequest
		switch ol.Error.Code {
		case "server_error", "internal_error":
			status = http.StatusInternalServerError
		case "rate_limit_exceeded":
			status = http.StatusTooManyRequests
		}
		return outcome{err: &openai.APIError{HTTPStatusCode: status, Code: ol.Error.Code, Message: ol.Error.Message}}
	}
	return outcome{missing: true}
}

// writeRecord stores rec atomically.
func (b *batcher) writeRecord(rec jobRecord) error {
	if b.dir == "" {
		return nil
	}
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(b.dir, 0o755); err != nil {
		return fmt.Errorf("write batch job record: %w", err)
	}
	f, err := os.CreateTemp(b.dir, ".tmp-*")
	if err != nil {
		return fmt.Errorf("write batch job record: %w", err)
	}
	_, werr := f.Write(data)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(f.Name(), b.recordPath(rec.ID))
	}
	if werr != nil {
		os.Remove(f.Name())
		return fmt.Errorf("write batch job record %s: %w", rec.ID, werr)
	}
	return nil
}

func (b *batcher) removeRecord(id string) {
	if b.dir == "" || id == "" {
		return
	}
	if err := os.Remove(b.recordPath(id)); err != nil && !errors.Is(err, os.ErrNotExist) {
		b.c.warn(fmt.Errorf("remove batch job record: %w", err))
	}
}

// recordPath is where job id is recorded; an id is a server's word, so it is made a safe name.
func (b *batcher) recordPath(id string) string {
	safe := strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '_'
	}, id)
	return filepath.Join(b.dir, safe+".json")
}

// control runs one request of the batch workflow (upload, create, poll, download) under the
// idle time-out, retrying what is transient as chat requests are. It is not counted in any
// stage: it bills no tokens.
func (c *Client) control(ctx context.Context, what string, f func(ctx context.Context) error) error {
	for n := 0; ; n++ {
		actx, cancel := context.WithCancelCause(ctx)
		meta := &respMeta{idle: newWatchdog(c.cfg.Timeout, cancel)}
		err := f(context.WithValue(actx, metaKey{}, meta))
		idle := meta.idle.stop()
		cancel(nil)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if idle {
			err = fmt.Errorf("%w for %s: %w", errIdle, c.cfg.Timeout, context.DeadlineExceeded)
		}
		if !retryable(err) || n >= c.cfg.MaxRetries || (unreachable(err) && n >= maxUnreachableRetries) {
			if n > 0 {
				return fmt.Errorf("%s (gave up after %d attempts): %w", what, n+1, err)
			}
			return fmt.Errorf("%s: %w", what, err)
		}
		wait := c.backoff(n, retryAfter(meta.header, time.Now()))
		c.warn(fmt.Errorf("%s: attempt %d of %d failed, retrying in %s (%s): %w",
			what, n+1, c.cfg.MaxRetries+1, wait.Round(10*time.Millisecond), retryHint(err, meta.status), err))
		if err := sleep(ctx, wait); err != nil {
			return err
		}
	}
}

func (c *Client) notice(msg string) {
	if c.cfg.OnNotice != nil {
		c.cfg.OnNotice(msg)
	}
}
