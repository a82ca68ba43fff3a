// Package strata is strata's Go API: a program opens a store (embedded or Neo4j), ingests
// documents (offline or with models), queries in any mode and deletes documents in-process, as
// the strata command does.
//
// The work is done by the public packages pipeline (ingest and delete: pipeline.Ingester) and
// retrieval (queries: retrieval.Engine). What they take from strata's internal packages (the
// store, the embedder, the tokenizer, the model client) is named here through aliases, with
// the constructors a program needs; Models builds an Ingester and an Engine wired as the
// command wires them. The protocols behind them (SQLite, Bolt and Cypher, the OpenAI API) stay
// internal.
package strata

import (
	"context"

	"github.com/rs/zerolog"

	"github.com/stratarag/strata/cypher"
	"github.com/stratarag/strata/internal/embedded"
	"github.com/stratarag/strata/internal/embedding"
	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/llm"
	"github.com/stratarag/strata/internal/llmtask/keypoints"
	"github.com/stratarag/strata/internal/llmtask/summarize"
	"github.com/stratarag/strata/internal/tokenizer"
	"github.com/stratarag/strata/pipeline"
	"github.com/stratarag/strata/pipeline/arch"
	"github.com/stratarag/strata/pipeline/extract"
	"github.com/stratarag/strata/pipeline/layers"
	"github.com/stratarag/strata/pipeline/reports"
	"github.com/stratarag/strata/retrieval"
	"github.com/stratarag/strata/retrieval/answer"
)

type (
	// Store is a graph store: the embedded one (OpenEmbedded) or Neo4j (OpenNeo4j).
	Store = graph.Store
	// EmbeddedOptions are the embedded store's settings: read-only, resident copies.
	EmbeddedOptions = embedded.Options
	// Embedder turns texts into vectors: the offline hashing embedder (NewOfflineEmbedder) or
	// an embedding model through a Client.
	Embedder = embedding.Embedder
	// Tokenizer counts and cuts text in cl100k_base tokens (NewTokenizer).
	Tokenizer = tokenizer.Tokenizer
	// Client is an OpenAI-compatible API client for chat and embeddings (NewClient): it
	// retries, rate-limits, caches and counts every call.
	Client = llm.Client
	// ClientConfig configures a Client (ClientConfigFromEnv reads the environment the command
	// reads).
	ClientConfig = llm.Config
)

// OfflineDimensions is the dimension of the offline embedder's vectors.
const OfflineDimensions = 384

// OpenEmbedded opens (creating it unless opt.ReadOnly) the embedded store in dir. A writable
// store takes the directory's writer lock until Close.
func OpenEmbedded(ctx context.Context, dir string, opt EmbeddedOptions) (Store, error) {
	s, err := embedded.Open(ctx, dir, opt)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// OpenNeo4j opens the Neo4j database cfg names (cypher.ConfigFromEnv reads the command's
// environment).
func OpenNeo4j(ctx context.Context, cfg cypher.Config) (Store, error) {
	s, err := cypher.Open(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// NewTokenizer returns a cl100k_base tokenizer.
func NewTokenizer() (*Tokenizer, error) { return tokenizer.New() }

// NewOfflineEmbedder returns the hashing embedder the command uses without an embedding model.
func NewOfflineEmbedder() Embedder { return embedding.NewOffline(OfflineDimensions) }

// ClientConfigFromEnv reads OPENAI_API_KEY, OPENAI_BASE_URL and the other variables the command
// reads (docs/MODELS.md).
func ClientConfigFromEnv() ClientConfig { return llm.ConfigFromEnv() }

// NewClient returns a client of the API cfg names.
func NewClient(cfg ClientConfig) (*Client, error) { return llm.New(cfg) }

// Models are the parts of a run that models back. Without Chat the stages work offline, as
// `strata ingest --offline` does: proper-noun extraction, extractive summaries, relations and
// reports, and queries that return their context without an answer.
type Models struct {
	Chat      *Client // nil: offline
	Embedder  Embedder
	Tokenizer *Tokenizer
	// Extraction configures the model's extraction (mode, gleaning, descriptions).
	Extraction extract.LLMOptions
	// StructureAll asks the model for every summary, inter-summary relation and report, not
	// only for those whose members say enough (`--llm-structure all`).
	StructureAll bool
	// OfflineSummaries writes the summary layers without the model, as an offline run does,
	// while the inter-summary relations and reports still ask it (`--llm-structure lean`).
	OfflineSummaries bool
	// ReportConcurrency bounds the report calls at once (0: the stage's default).
	ReportConcurrency int
	Log               zerolog.Logger
}

// Ingester returns an ingester of store with these models and opt (pipeline.DefaultOptions,
// validated by the caller).
func (m Models) Ingester(store Store, opt pipeline.Options) (*pipeline.Ingester, error) {
	in := &pipeline.Ingester{Store: store, Embedder: m.Embedder, Tokenizer: m.Tokenizer, Log: m.Log, Options: opt}
	if m.Chat == nil {
		in.Extractor = extract.NewOffline()
		in.LayerSummarizer = layers.Extractive{}
		in.RelationDescriber = layers.ExtractiveRelations{}
		in.Reporter = &reports.Extractive{Embedder: m.Embedder}
		in.ArchSummarizer = arch.Extractive{}
		return in, nil
	}
	summarizer, err := summarize.New(m.Chat, summarize.Options{})
	if err != nil {
		return nil, err
	}
	every := 0 // each stage's own threshold
	if m.StructureAll {
		every = -1
	}
	in.Extractor = extract.NewLLM(m.Chat, m.Extraction)
	in.Summarizer = summarizer
	in.LayerSummarizer = &layers.LLM{Chat: m.Chat, Tokenizer: m.Tokenizer, MinInputTokens: every}
	if m.OfflineSummaries {
		in.LayerSummarizer = layers.Extractive{}
	}
	in.RelationDescriber = &layers.LLMRelations{Chat: m.Chat, All: m.StructureAll}
	in.Reporter = &reports.LLM{Chat: m.Chat, Embedder: m.Embedder, Tokenizer: m.Tokenizer, Log: m.Log,
		Concurrency: m.ReportConcurrency, MinInputTokens: every}
	in.ArchSummarizer = &arch.LLM{Chat: m.Chat, Tokenizer: m.Tokenizer}
	return in, nil
}

// Engine returns a retrieval engine over store with these models: with Chat, it writes answers
// and global search's map step asks the model.
func (m Models) Engine(store Store) *retrieval.Engine {
	e := &retrieval.Engine{Store: store, Embedder: m.Embedder, Tokenizer: m.Tokenizer}
	if m.Chat != nil {
		e.Answerer = answer.New(m.Chat, answer.Options{})
		e.Mapper = keypoints.Mapper{Chat: m.Chat}
	}
	return e
}
