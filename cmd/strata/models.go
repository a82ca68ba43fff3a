package main

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/rs/zerolog"
	"github.com/urfave/cli/v2"

	"github.com/stratarag/strata/internal/embedding"
	"github.com/stratarag/strata/internal/llm"
	"github.com/stratarag/strata/internal/llmtask"
	"github.com/stratarag/strata/internal/tokenizer"
	"github.com/stratarag/strata/pipeline"
	"github.com/stratarag/strata/pipeline/extract"
	"github.com/stratarag/strata/pipeline/layers"
	"github.com/stratarag/strata/pipeline/reports"
	"github.com/stratarag/strata/pipeline/resolve"
	"github.com/stratarag/strata/prompts"
	"github.com/stratarag/strata/retrieval"
	"github.com/stratarag/strata/retrieval/answer"
)

// models are the model-backed parts of a run: an OpenAI-compatible API when one is configured,
// the offline stand-ins otherwise.
type models struct {
	client     *llm.Client // nil offline
	extractor  extract.Extractor
	embedder   embedding.Embedder
	answerer   retrieval.Answerer // nil offline
	mapper     retrieval.Mapper   // global search's map step; nil offline
	summarizer resolve.Summarizer // nil offline
}

// offlineDims is the dimension of the offline embedder's vectors.
const offlineDims = 384

// setupModels picks the offline path (with --offline, or when neither OPENAI_API_KEY nor
// OPENAI_BASE_URL is set, saying so once) or builds the LLM client from flags and environment.
// No request is made here.
func setupModels(c *cli.Context, log zerolog.Logger) (*models, error) {
	cfg := llm.ConfigFromEnv()
	if c.Bool(flagOffline) || !cfg.Configured() {
		if c.Bool(flagOffline) {
			log.Info().Msg("offline mode (--offline): proper-noun extractor and hashing embedder; no answers are generated")
		} else {
			log.Warn().Msg("no OPENAI_API_KEY or OPENAI_BASE_URL set: running offline with the proper-noun extractor and hashing embedder (lower quality); no answers are generated")
		}
		return &models{extractor: extract.NewOffline(), embedder: embedding.NewOffline(offlineDims)}, nil
	}
	cfg.ChatModel = c.String(flagLLMModel)
	cfg.EmbeddingModel = c.String(flagEmbeddingModel)
	cfg.EmbeddingDims = c.Int(flagEmbeddingDims)
	cfg.Concurrency = c.Int(flagLLMConcurrency)
	cfg.RPM, cfg.TPM = c.Int(flagLLMRPM), c.Int(flagLLMTPM)
	cfg.Timeout = c.Duration(flagLLMTimeout)
	if !c.Bool(flagNoCache) {
		cfg.CacheDir = c.String(flagCacheDir)
		if cfg.CacheDir == "" {
			cfg.CacheDir = filepath.Join(c.String(flagDataDir), "llm-cache")
		}
	}
	cfg.OnWarning = func(err error) { log.Warn().Err(err).Msg("llm") }
	client, err := llm.New(cfg)
	if err != nil {
		return nil, usageError{err}
	}
	log.Info().Str("llm", client.Config().String()).Msg("using an OpenAI-compatible API")

	extOpt, err := extractionOptions(c)
	if err != nil {
		return nil, err
	}
	summarizer, err := llmtask.NewSummarizer(client, llmtask.SummarizerOptions{})
	if err != nil {
		return nil, err
	}
	return &models{
		client:     client,
		extractor:  extract.NewLLM(client, extOpt),
		embedder:   client,
		answerer:   answer.New(client, answer.Options{}),
		mapper:     keyPointsMapper{chat: client, prompts: prompts.New()},
		summarizer: summarizer,
	}, nil
}

// extractionOptions parses --extract-mode and --gleaning. ingest checks them before anything
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
	return extract.LLMOptions{Mode: mode, Gleaning: gleaning}, nil
}

// prepareEmbedder learns the embedding dimension (one cached probe call) so that the store's
// model check and vector indexes know it before the first write.
func (m *models) prepareEmbedder(ctx context.Context) error {
	if m.client == nil {
		return nil
	}
	if _, err := m.client.DiscoverDimensions(ctx); err != nil {
		return fmt.Errorf("embedding model: %w", err)
	}
	return nil
}

// reporter writes community reports with the model when there is one.
func (m *models) reporter(tok *tokenizer.Tokenizer, log zerolog.Logger) pipeline.Reporter {
	if m.client == nil {
		return &reports.Extractive{Embedder: m.embedder}
	}
	return &reports.LLM{Chat: m.client, Prompts: prompts.New(), Embedder: m.embedder, Tokenizer: tok, Log: log}
}

// keyPointsMapper runs global search's map step with the model.
type keyPointsMapper struct {
	chat    llm.Chatter
	prompts *prompts.Set
}

func (k keyPointsMapper) KeyPoints(ctx context.Context, question, reportsText string) ([]prompts.Point, error) {
	return llmtask.KeyPoints(ctx, k.chat, k.prompts, question, reportsText)
}

// layerSummarizer writes summary entities with the model when there is one.
func (m *models) layerSummarizer(tok *tokenizer.Tokenizer) layers.Summarizer {
	if m.client == nil {
		return layers.Extractive{}
	}
	return &layers.LLM{Chat: m.client, Prompts: prompts.New(), Tokenizer: tok}
}

// relationDescriber describes the aggregation's inter-summary relations with the model when
// there is one.
func (m *models) relationDescriber() layers.RelationDescriber {
	if m.client == nil {
		return layers.ExtractiveRelations{}
	}
	return &layers.LLMRelations{Chat: m.client, Prompts: prompts.New()}
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
