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
)

// Defaults applied by New to zero fields of Config.
const (
	DefaultBaseURL        = "https://api.openai.com/v1"
	DefaultChatModel      = "gpt-4o-mini"
	DefaultEmbeddingModel = "text-embedding-3-small"
	DefaultConcurrency    = 8
	DefaultMaxRetries     = 6
	DefaultTimeout        = 3 * time.Minute
	DefaultEmbeddingBatch = 64
	DefaultRetryBaseDelay = time.Second
	DefaultRetryMaxDelay  = time.Minute
	DefaultSlowRequest    = 30 * time.Second
)

// Config configures a Client. Zero fields take the defaults above.
type Config struct {
	BaseURL        string // OpenAI-compatible endpoint; a URL without a path gets "/v1"
	APIKey         string `json:"-"` // never logged or serialized
	ChatModel      string
	EmbeddingModel string

	Concurrency int // requests in flight at most
	RPM         int // requests per minute; 0 means no limit
	TPM         int // tokens per minute (prompt estimate + max_tokens); 0 means no limit

	MaxRetries     int           // retries after the first attempt; negative means none
	Timeout        time.Duration // per attempt
	RetryBaseDelay time.Duration // first backoff delay, doubled each retry
	RetryMaxDelay  time.Duration // backoff cap (Retry-After from the server may exceed it)
	// SlowRequest is how long an attempt may be outstanding before OnWarning is told (once per
	// attempt), so that a hung server shows in the log long before Timeout ends the attempt.
	SlowRequest time.Duration

	// CacheDir holds the response cache; "" disables caching.
	CacheDir string

	EmbeddingBatch int // texts per embeddings request
	// EmbeddingDims, when positive, is sent as the "dimensions" parameter (text-embedding-3
	// models) and reported by Dimensions before any call. When zero, the dimension is learnt
	// from the first response.
	EmbeddingDims int

	// OnWarning, if set, is told about problems that do not fail a call, such as a cache entry
	// that could not be written. It must be safe for concurrent use.
	OnWarning func(error) `json:"-"`
}

// Environment variables read by ConfigFromEnv: the same two the OpenAI SDKs read.
const (
	EnvAPIKey  = "OPENAI_API_KEY"
	EnvBaseURL = "OPENAI_BASE_URL"
)

// ConfigFromEnv returns a Config with APIKey and BaseURL taken from OPENAI_API_KEY and
// OPENAI_BASE_URL. Other fields are left for flags to fill.
func ConfigFromEnv() Config {
	return Config{
		APIKey:  strings.TrimSpace(os.Getenv(EnvAPIKey)),
		BaseURL: strings.TrimSpace(os.Getenv(EnvBaseURL)),
	}
}

// Configured reports whether an LLM endpoint was configured at all (a key or a base URL). With
// neither, strata runs offline.
func (c Config) Configured() bool { return c.APIKey != "" || c.BaseURL != "" }

// String describes the configuration for logs, with the API key redacted.
func (c Config) String() string {
	key := "none"
	if c.APIKey != "" {
		key = "set"
	}
	base := c.BaseURL
	if u, err := url.Parse(base); err == nil {
		base = u.Redacted() // a password in the URL is a secret too
	}
	return fmt.Sprintf("llm{base=%s chat=%s embed=%s key=%s concurrency=%d rpm=%d tpm=%d retries=%d timeout=%s cache=%q}",
		base, c.ChatModel, c.EmbeddingModel, key, c.Concurrency, c.RPM, c.TPM, c.MaxRetries, c.Timeout, c.CacheDir)
}

// withDefaults fills zero fields and normalizes the base URL.
func (c Config) withDefaults() (Config, error) {
	if c.BaseURL == "" {
		c.BaseURL = DefaultBaseURL
	}
	u, err := url.Parse(c.BaseURL)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return c, fmt.Errorf("llm base URL %q: want an absolute http(s) URL", c.BaseURL)
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/v1" // Ollama, vLLM and LM Studio serve the OpenAI API under /v1
	}
	c.BaseURL = strings.TrimSuffix(u.String(), "/")
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
	if c.RPM < 0 || c.TPM < 0 || c.EmbeddingDims < 0 {
		return c, errors.New("llm config: RPM, TPM and EmbeddingDims must not be negative")
	}
	return c, nil
}
