package main

import (
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/stratarag/strata/internal/llm"
	"github.com/stratarag/strata/internal/tokenizer"
	"github.com/stratarag/strata/pipeline"
	"github.com/stratarag/strata/pipeline/chunk"
	"github.com/stratarag/strata/pipeline/extract"
)

// dryRunOutput is what `ingest --dry-run --json` prints.
type dryRunOutput struct {
	Documents    int          `json:"documents"`
	Skipped      []string     `json:"skipped"`
	Chunks       int          `json:"chunks"`
	CorpusTokens int          `json:"corpus_tokens"`
	Offline      bool         `json:"offline"`
	Estimate     llm.Estimate `json:"estimate"`
	// TokensPerCorpusToken is chat prompt+completion tokens per corpus token (extraction stages).
	TokensPerCorpusToken float64 `json:"llm_tokens_per_corpus_token"`
}

// runDryRun loads and chunks the inputs and estimates the LLM work of extracting and embedding
// them, without calling a model or opening the store. Calls the response cache already answers
// are counted as cached.
func runDryRun(c *cli.Context, m *models, tok *tokenizer.Tokenizer, opt pipeline.Options) error {
	out := dryRunOutput{Skipped: []string{}, Offline: m.client == nil}
	log, err := newLogger(c)
	if err != nil {
		return err
	}
	docs, problems, _, err := pipeline.LoadDocuments(c.Context, c.Args().Slice(), log)
	if err != nil {
		return reportFailure(c, err)
	}
	var texts []string
	for _, d := range docs {
		pieces, err := chunk.Split(tok, d.ID, d.Text, opt.Chunk)
		if err != nil {
			return reportFailure(c, err)
		}
		out.Documents++
		for _, p := range pieces {
			texts = append(texts, p.Text)
			out.CorpusTokens += p.Tokens
		}
	}
	for _, p := range problems {
		out.Skipped = append(out.Skipped, p.String())
	}
	if out.Documents == 0 {
		return reportFailure(c, fmt.Errorf("%w: %d input(s) skipped", pipeline.ErrNothingIngested, len(problems)))
	}
	out.Chunks = len(texts)
	if x, ok := m.extractor.(*extract.LLM); ok {
		est, err := x.Estimate(c.Context, texts)
		if err != nil {
			return reportFailure(c, err)
		}
		est.Add(llm.StageEmbed, m.client.EstimateEmbeddings(texts))
		est.Assumptions = append(est.Assumptions,
			"not counted: description summaries, entity embeddings and community reports, which depend on the graph extraction builds")
		out.Estimate = est
		if out.CorpusTokens > 0 {
			chat := 0
			for stage, s := range est.Stages {
				if stage != llm.StageEmbed {
					chat += s.PromptTokens + s.CompletionTokens
				}
			}
			out.TokensPerCorpusToken = float64(chat) / float64(out.CorpusTokens)
		}
	} else if m.client != nil {
		return reportFailure(c, errors.New("dry run: the extractor in use cannot estimate its cost"))
	}
	if c.Bool(flagJSON) {
		return writeJSON(c, out)
	}
	w := c.App.Writer
	fmt.Fprintf(w, "Dry run: %d documents, %d chunks, %d corpus tokens, %d inputs skipped\n", out.Documents, out.Chunks, out.CorpusTokens, len(out.Skipped))
	if out.Offline {
		fmt.Fprintln(w, "Offline: ingesting makes no LLM calls.")
		return nil
	}
	if err := writeEstimateTable(w, out.Estimate); err != nil {
		return err
	}
	fmt.Fprintf(w, "Extraction: %.1f LLM tokens per corpus token\n", out.TokensPerCorpusToken)
	return nil
}
