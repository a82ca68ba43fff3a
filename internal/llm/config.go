// Package llm is strata's client for OpenAI-compatible chat and embedding APIs (OpenAI, Ollama,
// vLLM, LM Studio, DeepSeek…), built on github.com/sashabaranov/go-openai. It is a transport: it
// sends messages and returns answers (without the reasoning blocks some models put first), and
// knows no prompt and parses no answer; the prompt-level tasks over it are in package llmtask.
//
// Everything that makes indexing affordable and dependable lives here: bounded concurrency,
// requests- and tokens-per-minute limits, retries with backoff that honour Retry-After, a
// content-addressed response cache on disk (a re-run or a resumed run makes no call for work
// already done), and per-stage accounting of calls and tokens.
package llm

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/stratarag/strata/internal/embedding"
)

// Defaults applied by New to zero fields of Config.
const (
	DefaultBaseURL              = "https://api.openai.com/v1"
	DefaultChatModel            = "gpt-4o-mini"
	DefaultEmbeddingModel       = "text-embedding-3-small"
	DefaultConcurrency          = 8
	DefaultEmbeddingConcurrency = 4
	DefaultMaxRetries           = 6
	DefaultTimeout              = 3 * time.Minute
	DefaultEmbeddingBatch       = 64
	DefaultEmbeddingBatchTokens = 8000
	DefaultRetryBaseDelay       = time.Second
	DefaultRetryMaxDelay        = time.Minute
	DefaultSlowRequest          = 30 * time.Second
	DefaultBatchSize            = 1000
	DefaultBatchWait            = 2 * time.Second
	DefaultBatchPoll            = 15 * time.Second
)

// MaxBatchSize is the most requests one Batch API job takes (OpenAI's limit).
const MaxBatchSize = 50000

// Config configures a Client. Zero fields take the defaults above.
type Config struct {
	BaseURL        string // OpenAI-compatible endpoint; a URL without a path gets "/v1"
	APIKey         string `json:"-"` // never logged or serialized
	ChatModel      string
	EmbeddingModel string

	// The embedding endpoint, when it is not the chat one (a zero base URL takes the chat's base
	// URL and key).
	EmbeddingBaseURL string
	EmbeddingAPIKey  string `json:"-"` // never logged or serialized

	Concurrency          int // chat requests in flight at most
	EmbeddingConcurrency int // embedding requests in flight at most, apart from chat ones
	RPM                  int // requests per minute; 0 means no limit
	TPM                  int // tokens per minute (prompt estimate + max_tokens); 0 means no limit
	// TokenBudget caps the chat tokens (prompt + completion, as billed; cached answers are free)
	// the client spends: once they reach it, no new chat attempt starts and calls fail with
	// ErrBudgetSpent, while attempts in flight finish and are counted, so the spend may pass
	// the budget by what they cost. Embeddings are not counted. 0 means no budget.
	TokenBudget int

	MaxRetries int // retries after the first attempt; negative means none
	// Timeout is how long an attempt may go without receiving anything from the server: no
	// response yet, or no byte of a streamed answer. An answer still arriving is never cut
	// off, however long it takes, and an attempt given up this way is not sent again.
	Timeout        time.Duration
	RetryBaseDelay time.Duration // first backoff delay, doubled each retry
	RetryMaxDelay  time.Duration // backoff cap (Retry-After from the server may exceed it)
	// SlowRequest is how long an attempt may be outstanding before OnWarning is told (once per
	// attempt), so that a hung server shows in the log long before Timeout ends the attempt.
	SlowRequest time.Duration

	// CacheDir holds the response cache; "" disables caching. In batch mode the records of
	// batches in flight live in its "batches" folder, so that a run resumes them.
	CacheDir string

	// Batch sends chat requests as OpenAI Batch API jobs (/v1/files and /v1/batches) instead of
	// one by one: half the price on OpenAI, for a latency of minutes to hours. Requests that
	// wait at the same time go in one job (see batch.go); answers, cache and accounting are
	// those of direct calls. Requests that must not be stored (ChatRequest.NoStore) go direct.
	Batch bool
	// BatchSize is the most requests a job holds; a job goes as soon as that many wait.
	BatchSize int
	// BatchWait is the quiet period after which the requests waiting go as one job: no new
	// request arrived for that long (and at most 5× that after the first of them).
	BatchWait time.Duration
	// BatchPoll is the time between two polls of a job in flight.
	BatchPoll time.Duration
	// OnNotice, if set, is told about the progress of batch jobs (submitted, resumed, done), for
	// the log. It must be safe for concurrent use.
	OnNotice func(string) `json:"-"`

	EmbeddingBatch       int // texts per embeddings request at most
	EmbeddingBatchTokens int // tokens per embeddings request at most (cl100k_base estimate)
	// EmbeddingMarking tells queries from passages for asymmetric models (e5, bge, nomic);
	// the zero value marks nothing (the CLI starts from embedding.DefaultMarking). It is part
	// of the model's name in the stores and of the cache key.
	EmbeddingMarking embedding.Marking
	// EmbeddingDims, when positive, is sent as the "dimensions" parameter (text-embedding-3
	// models) and reported by Dimensions before any call. When zero, the dimension is learnt
	// from the first response.
	EmbeddingDims int

	// ContextWindow is the chat model's context window in tokens; answers are capped to fit
	// it. 0: learnt from the server's first overflow error (Probe reads llama.cpp's window
	// before any request).
	ContextWindow int
	// Structured is the most constrained structured-output format sent first (the zero value
	// is FormatJSONSchema); the client steps down from it when the server refuses.
	Structured Format

	// OnWarning, if set, is told about problems that do not fail a call, such as a cache entry
	// that could not be written. It must be safe for concurrent use.
	OnWarning func(error) `json:"-"`
}

// Environment variables read by ConfigFromEnv: the two the OpenAI SDKs read, and strata's own
// for an embedding endpoint apart from the chat one.
const (
	EnvAPIKey           = "OPENAI_API_KEY"
	EnvBaseURL          = "OPENAI_BASE_URL"
	EnvEmbeddingAPIKey  = "STRATA_EMBEDDING_API_KEY"
	EnvEmbeddingBaseURL = "STRATA_EMBEDDING_BASE_URL"
)

// ConfigFromEnv returns a Config with the endpoints and keys taken from OPENAI_API_KEY,
// OPENAI_BASE_URL, STRATA_EMBEDDING_API_KEY and STRATA_EMBEDDING_BASE_URL. Other fields are left
// for flags to fill.
func ConfigFromEnv() Config {
	return Config{
		APIKey:           strings.TrimSpace(os.Getenv(EnvAPIKey)),
		BaseURL:          strings.TrimSpace(os.Getenv(EnvBaseURL)),
		EmbeddingAPIKey:  strings.TrimSpace(os.Getenv(EnvEmbeddingAPIKey)),
		EmbeddingBaseURL: strings.TrimSpace(os.Getenv(EnvEmbeddingBaseURL)),
	}
}

// Configured reports whether a chat endpoint was configured at all (a key or a base URL). With
// neither, strata extracts and answers offline.
func (c Config) Configured() bool { return c.APIKey != "" || c.BaseURL != "" }

// EmbeddingConfigured reports whether an embedding endpoint of its own was configured.
func (c Config) EmbeddingConfigured() bool {
	return c.EmbeddingBaseURL != "" || c.EmbeddingAPIKey != ""
}

// String describes the configuration for logs, with the API key redacted.
func (c Config) String() string {
	set := func(key string) string {
		if key != "" {
			return "set"
		}
		return "none"
	}
	redact := func(base string) string {
		if u, err := url.Parse(base); err == nil {
			return u.Redacted() // a password in the URL is a secret too
		}
		return base
	}
	return fmt.Sprintf("llm{base=%s chat=%s key=%s embed_base=%s embed=%q embed_key=%s concurrency=%d embed_concurrency=%d rpm=%d tpm=%d budget=%d retries=%d idle_timeout=%s context=%d structured=%s cache=%q%s}",
		redact(c.BaseURL), c.ChatModel, set(c.APIKey), redact(c.EmbeddingBaseURL), c.EmbeddingModel+" "+c.EmbeddingMarking.String(), set(c.EmbeddingAPIKey),
		c.Concurrency, c.EmbeddingConcurrency, c.RPM, c.TPM, c.TokenBudget, c.MaxRetries, c.Timeout, c.ContextWindow, c.Structured, c.CacheDir, c.batchString())
}

// withDefaults fills zero fields and normalizes the base URL.
func (c Config) withDefaults() (Config, error) {
	if c.BaseURL == "" {
		c.BaseURL = DefaultBaseURL
	}
	if c.EmbeddingBaseURL == "" {
		c.EmbeddingBaseURL, c.EmbeddingAPIKey = c.BaseURL, c.APIKey
	}
	var err error
	if c.BaseURL, err = normalizeBaseURL(c.BaseURL); err != nil {
		return c, err
	}
	if c.EmbeddingBaseURL, err = normalizeBaseURL(c.EmbeddingBaseURL); err != nil {
		return c, err
	}
	if c.EmbeddingConcurrency <= 0 {
		c.EmbeddingConcurrency = DefaultEmbeddingConcurrency
	}
	if c.Structured < FormatJSONSchema || c.Structured > FormatText {
		return c, fmt.Errorf("llm config: unknown structured-output format %d", c.Structured)
	}
	if c.ContextWindow < 0 {
		return c, errors.New("llm config: ContextWindow must not be negative")
	}
	if c.ChatModel == "" {
		c.ChatModel = DefaultChatModel
	}
	if c.EmbeddingModel == "" {
		c.EmbeddingModel = DefaultEmbeddingModel
	}
	if c.Concurrency <= 0 {
		c.Concurrency = DefaultConcurrency
	}
	switch {
	case c.MaxRetries == 0:
		c.MaxRetries = DefaultMaxRetries
	case c.MaxRetries < 0:
		c.MaxRetries = 0
	}
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	if c.SlowRequest <= 0 {
		c.SlowRequest = DefaultSlowRequest
	}
	if c.RetryBaseDelay <= 0 {
		c.RetryBaseDelay = DefaultRetryBaseDelay
	}
	if c.RetryMaxDelay <= 0 {
		c.RetryMaxDelay = DefaultRetryMaxDelay
	}
	if c.RetryMaxDelay < c.RetryBaseDelay {
		c.RetryMaxDelay = c.RetryBaseDelay
	}
	if c.EmbeddingBatch <= 0 {
		c.EmbeddingBatch = DefaultEmbeddingBatch
	}
	if c.EmbeddingBatchTokens <= 0 {
		c.EmbeddingBatchTokens = DefaultEmbeddingBatchTokens
	}
	if c.RPM < 0 || c.TPM < 0 || c.EmbeddingDims < 0 || c.TokenBudget < 0 {
		return c, errors.New("llm config: RPM, TPM, EmbeddingDims and TokenBudget must not be negative")
	}
	if c.BatchSize < 0 || c.BatchSize > MaxBatchSize || c.BatchWait < 0 || c.BatchPoll < 0 {
		return c, fmt.Errorf("llm config: BatchSize must be within 0..%d, BatchWait and BatchPoll must not be negative", MaxBatchSize)
	}
	if c.BatchSize == 0 {
		c.BatchSize = DefaultBatchSize
	}
	if c.BatchWait == 0 {
		c.BatchWait = DefaultBatchWait
	}
	if c.BatchPoll == 0 {
		c.BatchPoll = DefaultBatchPoll
	}
	return c, nil
}

// batchString describes the batch settings for String, empty when batching is off.
func (c Config) batchString() string {
	if !c.Batch {
		return ""
	}
	return fmt.Sprintf(" batch{size=%d wait=%s poll=%s}", c.BatchSize, c.BatchWait, c.BatchPoll)
}

// normalizeBaseURL checks an endpoint and gives a URL without a path "/v1".
func normalizeBaseURL(base string) (string, error) {
	u, err := url.Parse(base)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return "", fmt.Errorf("llm base URL %q: want an absolute http(s) URL", base)
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/v1" // Ollama, vLLM and LM Studio serve the OpenAI API under /v1
	}
	return strings.TrimSuffix(u.String(), "/"), nil
}
