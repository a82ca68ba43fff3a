package llm

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/stratarag/strata/internal/tokenizer"
)

// Client talks to an OpenAI-compatible API. It implements Chatter and embedding.Embedder and is safe
// for concurrent use.
type Client struct {
	cfg   Config
	http  capturingDoer
	api   *openai.Client // embeddings, at the embedding endpoint
	cache *Cache         // nil when caching is off
	meter *Meter
	lim   *limiter // chat requests
	elim  *limiter // embedding requests, apart so that they never queue behind answers
	// budget counts the chat tokens billed and stops new chat attempts at Config.TokenBudget.
	budget *budget
	batch  *batcher // nil unless Config.Batch
	tok    *tokenizer.Tokenizer

	dims   atomic.Int64 // embedding dimension, once known
	format atomic.Int32 // the most constrained Format the server has not refused
	window atomic.Int64 // the chat model's context window, once known

	sysCounter *memoCounter
}

// New returns a client for cfg (zero fields take the package defaults). It makes no request.
func New(cfg Config) (*Client, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	tok, err := newTokenizer()
	if err != nil {
		return nil, err
	}
	doer := capturingDoer{client: newHTTPClient(cfg.Concurrency + cfg.EmbeddingConcurrency)}
	oc := openai.DefaultConfig(cfg.EmbeddingAPIKey)
	oc.BaseURL = cfg.EmbeddingBaseURL
	oc.HTTPClient = doer
	c := &Client{
		cfg:    cfg,
		http:   doer,
		api:    openai.NewClientWithConfig(oc),
		meter:  NewMeter(),
		lim:    newLimiter(cfg.Concurrency, cfg.RPM, cfg.TPM),
		elim:   newLimiter(cfg.EmbeddingConcurrency, 0, 0),
		tok:    tok,
		budget: newBudget(cfg.TokenBudget),
	}
	c.format.Store(int32(cfg.Structured))
	c.window.Store(int64(cfg.ContextWindow))
	c.sysCounter = &memoCounter{tok: tok, max: 64}
	if cfg.CacheDir != "" {
		if c.cache, err = OpenCache(cfg.CacheDir); err != nil {
			return nil, err
		}
	}
	if cfg.Batch {
		if c.batch, err = newBatcher(c, doer); err != nil {
			return nil, err
		}
	}
	if cfg.EmbeddingDims > 0 {
		c.dims.Store(int64(cfg.EmbeddingDims))
	}
	return c, nil
}

func newTokenizer() (*tokenizer.Tokenizer, error) {
	tok, err := tokenizer.New()
	if err != nil {
		return nil, fmt.Errorf("llm: %w", err)
	}
	return tok, nil
}

// Config returns the effective configuration (defaults applied).
func (c *Client) Config() Config { return c.cfg }

// Meter returns the meter that counts every call of the client.
func (c *Client) Meter() *Meter { return c.meter }

// Stats is c.Meter().Stats(), with the batch jobs' counters in batch mode.
func (c *Client) Stats() Stats {
	s := c.meter.Stats()
	if c.batch != nil {
		bs := c.batch.Stats()
		s.Batch = &bs
	}
	return s
}

// Tokenizer returns the cl100k tokenizer the client estimates tokens with.
func (c *Client) Tokenizer() *tokenizer.Tokenizer { return c.tok }

// record adds u to the client's meter and to any meter attached to ctx.
func (c *Client) record(ctx context.Context, stage string, u StageUsage) {
	c.meter.Add(stage, u)
	for _, m := range metersFrom(ctx) {
		m.Add(stage, u)
	}
}

func (c *Client) warn(err error) {
	if c.cfg.OnWarning != nil && err != nil {
		c.cfg.OnWarning(err)
	}
}

// stageOf picks the accounting label: the explicit one, else fallback.
func stageOf(explicit, fallback string) string {
	if explicit != "" {
		return explicit
	}
	return fallback
}

// ContextWindow is the chat model's context window in tokens: configured, discovered
// (Config.ContextWindow, which the CLI fills from Probe) or learnt from an overflow error; 0 while
// unknown. It implements Windowed.
func (c *Client) ContextWindow() int { return int(c.window.Load()) }

// Windowed is a chat model that may know its context window: ContextWindow returns it in
// tokens, 0 while unknown. *Client implements it; the tasks that size their prompts to the
// window ask for it through WindowOf.
type Windowed interface {
	ContextWindow() int
}

var _ Windowed = (*Client)(nil)

// WindowOf returns chat's context window in tokens, 0 when chat does not know it.
func WindowOf(chat Chatter) int {
	if w, ok := chat.(Windowed); ok {
		return w.ContextWindow()
	}
	return 0
}

// PromptRoom is the prompt, in cl100k tokens, that a window of window tokens holds beside an
// answer of answer tokens, keeping the margin fitAnswer keeps for the server's own tokenizer.
func PromptRoom(window, answer int) int { return (window - answer) * 5 / 6 }

// Format is the most constrained structured-output format the client sends now: the
// configured one, or a lower one the server's refusals led to.
func (c *Client) Format() Format { return Format(c.format.Load()) }

// permanent marks an error that must not be retried whatever its status.
type permanent struct{ error }

func (p permanent) Unwrap() error { return p.error }

// call runs one API request through lim with the idle time-out, and retries it as long as the
// failure is transient and retries remain. charge is what the request counts against the
// tokens-per-minute limit, sent what a failed attempt is counted for (its prompt). gate, when
// not nil, admits every attempt, retries included (a retry is billed as any request): chat
// requests pass the token budget, embeddings none.
func (c *Client) call(ctx context.Context, lim *limiter, gate *budget, stage string, charge, sent int, attempt func(ctx context.Context) error) error {
	for n := 0; ; n++ {
		release, err := lim.acquire(ctx, charge)
		if err != nil {
			return err
		}
		if gate != nil {
			// Checked once the slot is taken: a call that waited for it sees what the calls
			// before it spent.
			if err := gate.admit(ctx, stage); err != nil {
				release()
				return err
			}
		}
		actx, cancel := context.WithCancelCause(ctx)
		meta := &respMeta{idle: newWatchdog(c.cfg.Timeout, cancel)}
		slow := time.AfterFunc(c.cfg.SlowRequest, func() {
			if !meta.idle.heard() {
				c.warn(fmt.Errorf("%s request (attempt %d): no data from the server for %s; it is given up after %s without data (--llm-timeout)",
					stage, n+1, c.cfg.SlowRequest, c.cfg.Timeout))
			}
		})
		err = attempt(context.WithValue(actx, metaKey{}, meta))
		slow.Stop()
		idle := meta.idle.stop()
		cancel(nil)
		release()
		if gate != nil {
			gate.end()
		}
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if formatRejected(err) {
			return err // refused before any work: the caller asks again in another format
		}
		c.record(ctx, stage, StageUsage{FailedTokens: sent})
		if idle {
			// Not sent again: a server that is still working on the abandoned request would
			// have the same work queued twice.
			c.record(ctx, stage, StageUsage{Failures: 1})
			return fmt.Errorf("%w for %s (--llm-timeout); the request is not sent again: the server is overloaded or stuck, so lower --llm-concurrency or raise --llm-timeout: %w",
				errIdle, c.cfg.Timeout, context.DeadlineExceeded)
		}
		if !retryable(err) || n >= c.cfg.MaxRetries || (unreachable(err) && n >= maxUnreachableRetries) {
			c.record(ctx, stage, StageUsage{Failures: 1})
			if n > 0 {
				return fmt.Errorf("%w (gave up after %d attempts)", err, n+1)
			}
			return err
		}
		c.record(ctx, stage, StageUsage{Retries: 1})
		hint := retryAfter(meta.header, time.Now())
		wait := c.backoff(n, hint)
		if meta.status == 429 {
			lim.cooldown(wait)
		}
		c.warn(fmt.Errorf("%s request attempt %d of %d failed, retrying in %s (%s): %w",
			stage, n+1, c.cfg.MaxRetries+1, wait.Round(10*time.Millisecond), retryHint(err, meta.status), err))
		if err := sleep(ctx, wait); err != nil {
			return err
		}
	}
}
