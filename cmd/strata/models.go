package main

import (
	"os"

	"github.com/rs/zerolog"
	"github.com/urfave/cli/v2"

	"github.com/stratarag/strata/internal/embed"
	"github.com/stratarag/strata/pipeline/extract"
	"github.com/stratarag/strata/pipeline/resolve"
	"github.com/stratarag/strata/retrieval"
)

// models are the model-backed parts of a run: real models when an OpenAI-compatible API is
// configured, the offline stand-ins otherwise.
type models struct {
	offline    bool
	extractor  extract.Extractor
	embedder   embed.Embedder
	answerer   retrieval.Answerer // nil offline
	summarizer resolve.Summarizer // nil offline
	usage      func() retrieval.Usage
}

// offlineDims is the dimension of the offline embedder's vectors.
const offlineDims = 384

func setupModels(c *cli.Context, log zerolog.Logger) (*models, error) {
	configured := os.Getenv("OPENAI_API_KEY") != "" || os.Getenv("OPENAI_BASE_URL") != ""
	switch {
	case c.Bool(flagOffline):
		log.Info().Msg("offline mode (--offline): proper-noun extractor and hashing embedder, no LLM; answers are not generated")
	case !configured:
		log.Warn().Msg("no OPENAI_API_KEY or OPENAI_BASE_URL set: running offline with the proper-noun extractor and hashing embedder (lower quality); answers are not generated")
	default:
		log.Warn().Msg("an OpenAI-compatible API is configured, but the LLM path is not wired into this build yet: running offline")
	}
	return &models{
		offline:   true,
		extractor: extract.NewOffline(),
		embedder:  embed.NewOffline(offlineDims),
		usage:     func() retrieval.Usage { return retrieval.Usage{} },
	}, nil
}
