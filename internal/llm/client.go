package llm

import (
	"context"
	"errors"
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
	api   *openai.Client
	cache *Cache // nil when caching is off
	meter *Meter
	lim   *limiter
	tok   *tokenizer.Tokenizer

	dims   atomic.Int64 // embedding dimension, once known
	noJSON atomic.Bool  // the server rejected response_format; stop sending it

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
	oc := openai.DefaultConfig(cfg.APIKey)
	oc.BaseURL = cfg.BaseURL
	oc.HTTPClient = capturingDoer{client: newHTTPClient(cfg.Concurrency)}
	c := &Client{
		cfg:   cfg,
		api:   openai.NewClientWithConfig(oc),
		meter: NewMeter(),
		lim:   newLimiter(cfg),
		tok:   tok,
	}
	c.sysCounter = &memoCounter{tok: tok, max: 64}
	if cfg.CacheDir != "" {
		if c.cache, err = OpenCache(cfg.CacheDir); err != nil {
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

// Stats is shorthand for c.Meter().Stats().
func (c *Client) Stats() Stats { return c.meter.Stats() }

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

// stageOf picks the accounting label: the explicit one, else the context's, else fallback.
func stageOf(ctx context.Context, explicit, fallback string) string {
	if explicit != "" {
		return explicit
	}
	if s := StageFrom(ctx); s != "" {
		return s
	}
	return fallback
}

// call runs one API request through the limiter with a per-attempt time-out, and retries it as
// long as the failure is transient and retries remain. tokens is what the request is charged
// against the tokens-per-minute limit.
func (c *Client) call(ctx context.Context, stage string, tokens int, attempt func(ctx context.Context) error) error {
	for n := 0; ; n++ {
		release, err := c.lim.acquire(ctx, tokens)
		if err != nil {
			return err
		}
		meta := &respMeta{}
		actx, cancel := context.WithTimeout(context.WithValue(ctx, metaKey{}, meta), c.cfg.Timeout)
		slow := time.AfterFunc(c.cfg.SlowRequest, func() {
			c.warn(fmt.Errorf("%s request (attempt %d) outstanding for %s with no answer yet; it times out after %s",
				stage, n+1, c.cfg.SlowRequest, c.cfg.Timeout))
		})
		err = attempt(actx)
		slow.Stop()
		timedOut := errors.Is(actx.Err(), context.DeadlineExceeded)
		cancel()
		release()
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if timedOut && !errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("%w (after %s)", context.DeadlineExceeded, c.cfg.Timeout)
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
			c.lim.cooldown(wait)
		}
		if err := sleep(ctx, wait); err != nil {
			return err
		}
	}
}
