package pipeline

import (
	"context"
	"fmt"

	"github.com/stratarag/strata/internal/llm"
	"github.com/stratarag/strata/pipeline/chunk"
	"github.com/stratarag/strata/pipeline/load"
)

// Estimate is what ingesting some inputs would take: the documents and chunks they make and, with
// a model, the calls and tokens of extracting and embedding them. Its JSON form is what
// `strata ingest --dry-run --json` prints.
type Estimate struct {
	Documents    int            `json:"documents"`
	Problems     []load.Problem `json:"skipped"` // inputs a run would skip
	Ignored      []load.Problem `json:"ignored"` // folder entries a run would leave out by rule
	Chunks       int            `json:"chunks"`
	CorpusTokens int            `json:"corpus_tokens"`
	// Offline is true when neither the extractor nor the embedder calls a model.
	Offline bool         `json:"offline"`
	LLM     llm.Estimate `json:"estimate"`
	// TokensPerCorpusToken is chat prompt+completion tokens per corpus token (extraction stages;
	// the attributed-community estimate, stage "arch", is left out).
	TokensPerCorpusToken float64 `json:"llm_tokens_per_corpus_token"`
}

// extractionEstimator is an extractor that can predict its model calls without making them
// (extract.LLM).
type extractionEstimator interface {
	Estimate(ctx context.Context, texts []string) (llm.Estimate, error)
}

// embeddingEstimator is an embedder that can predict its model calls (llm.Client).
type embeddingEstimator interface {
	EstimateEmbeddings(texts []string) llm.StageEstimate
}

// Estimate loads and chunks the documents under paths, as Run would, and predicts the model work
// of extracting and embedding them, without calling a model or touching the store (in.Store may
// be nil). Calls the response cache already answers count as cached. Description summaries, entity
// embeddings, the summary entities of the hierarchical index and community reports are not
// counted: they depend on the graph that extraction builds. The aggregation's inter-summary
// relations are, from the corpus size and ratios measured offline (estimate_aggregate.go), since
// it is an option whose cost a user weighs before turning it off. in.Options must pass Validate.
func (in *Ingester) Estimate(ctx context.Context, paths []string) (Estimate, error) {
	docs, problems, _, err := LoadDocuments(ctx, paths, in.Log)
	if err != nil {
		return Estimate{}, err
	}
	if docs, _, err = dedupeIDs(docs, in.Log); err != nil {
		return Estimate{}, err
	}
	skipped, ignored := splitIgnored(problems)
	est := Estimate{Problems: append([]load.Problem{}, skipped...), Ignored: append([]load.Problem{}, ignored...)} // [] rather than null in JSON
	var texts []string
	for _, d := range docs {
		pieces, err := chunk.Split(in.Tokenizer, d.ID, d.Text, in.Options.Chunk)
		if err != nil {
			return est, err
		}
		est.Documents++
		for _, p := range pieces {
			texts = append(texts, p.Text)
			est.CorpusTokens += p.Tokens
		}
	}
	if est.Documents == 0 {
		return est, fmt.Errorf("%w: %d input(s) skipped, %d ignored", ErrNothingIngested, len(skipped), len(ignored))
	}
	est.Chunks = len(texts)

	x, extracts := in.Extractor.(extractionEstimator)
	e, embeds := in.Embedder.(embeddingEstimator)
	est.Offline = !extracts && !embeds
	if !extracts {
		if embeds {
			return est, fmt.Errorf("estimate: extractor %s cannot estimate its model calls", in.Extractor.Name())
		}
		return est, nil
	}
	if est.LLM, err = x.Estimate(ctx, texts); err != nil {
		return est, err
	}
	if embeds {
		est.LLM.Add(llm.StageEmbed, e.EstimateEmbeddings(texts))
	}
	// The ratio below is extraction's: it is taken before the aggregation and the attributed
	// communities are added.
	if est.CorpusTokens > 0 {
		chat := 0
		for stage, s := range est.LLM.Stages {
			if stage != llm.StageEmbed {
				chat += s.PromptTokens + s.CompletionTokens
			}
		}
		est.TokensPerCorpusToken = float64(chat) / float64(est.CorpusTokens)
	}
	if err := in.estimateAggregate(&est); err != nil {
		return est, err
	}
	est.LLM.Assumptions = append(est.LLM.Assumptions,
		"not counted: description summaries, entity embeddings, summary entities and community reports, which depend on the graph extraction builds")
	if a, why, ok := in.archEstimate(est.Chunks); ok {
		est.LLM.Add(llm.StageArch, a)
		est.LLM.Assumptions = append(est.LLM.Assumptions, why)
	}
	return est, nil
}
