package pipeline

import (
	"context"
	"fmt"

	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/llm"
	"github.com/stratarag/strata/pipeline/chunk"
	"github.com/stratarag/strata/pipeline/extract"
	"github.com/stratarag/strata/pipeline/load"
	"github.com/stratarag/strata/pipeline/resolve"
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
	// Unchanged counts the documents the store holds with the same text (a store-less dry run:
	// 0); ExtractChunks and ExtractTokens are the chunks that would be extracted and their
	// tokens (without a store: all of them).
	Unchanged     int `json:"unchanged"`
	ExtractChunks int `json:"chunks_to_extract"`
	ExtractTokens int `json:"tokens_to_extract"`
	// Offline is true when neither the extractor nor the embedder calls a model.
	Offline bool         `json:"offline"`
	LLM     llm.Estimate `json:"estimate"`
	// TokensPerCorpusToken is chat prompt+completion tokens of every stage per token extracted.
	TokensPerCorpusToken float64 `json:"llm_tokens_per_corpus_token"`
}

// extractionEstimator is an extractor that can predict its model calls without making them
// (extract.LLM).
type extractionEstimator interface {
	Estimate(ctx context.Context, texts []string) (llm.Estimate, error)
}

// assumedEstimator is an extraction estimator that can also predict without any model call
// (extract.LLM, which otherwise measures answers on a sample).
type assumedEstimator interface {
	EstimateAssumed(ctx context.Context, texts []string) (llm.Estimate, error)
}

// embeddingEstimator is an embedder that can predict its model calls (llm.Client).
type embeddingEstimator interface {
	EstimateEmbeddings(texts []string) llm.StageEstimate
}

// Estimate loads and chunks the documents under paths, as Run would, and predicts the model work
// of extracting and embedding them, without calling a model or writing anything. Calls the
// response cache already answers count as cached.
//
// Without a store (in.Store nil) or with an empty one, every document is new: description
// summaries, entity embeddings, the summary entities of the hierarchical index and community
// reports are not counted, since they depend on the graph that extraction builds. The
// aggregation's inter-summary relations are, from the corpus size and ratios measured offline
// (estimate_aggregate.go), since it is an option whose cost a user weighs before turning it off.
//
// Against a store that holds documents (read only), documents whose text is stored unchanged
// are left out, as Run leaves them, and only the chunks Run would extract are counted; the
// structure stages are predicted as the update (or build) that would follow
// (estimateStructure): the chunks that would be replaced say through their evidence which
// entities change, new chunks through what the offline extractor finds in them. in.Options must
// pass Validate.
func (in *Ingester) Estimate(ctx context.Context, paths []string) (Estimate, error) {
	docs, problems, _, err := LoadDocuments(ctx, paths, in.Log)
	if err != nil {
		return Estimate{}, err
	}
	skipped, ignored := splitIgnored(problems)
	est := Estimate{Problems: append([]load.Problem{}, skipped...), Ignored: append([]load.Problem{}, ignored...)} // [] rather than null in JSON
	stored := false
	var plan settingsPlan
	if in.Store != nil && len(docs) > 0 {
		st, err := in.Store.Stats(ctx)
		if err != nil {
			return est, fmt.Errorf("read store counts: %w", err)
		}
		if stored = st.Nodes["Document"] > 0; stored {
			if err := in.keepStoredIDs(ctx, docs); err != nil {
				return est, err
			}
			if plan, err = in.planSettings(ctx); err != nil {
				return est, err
			}
		}
	}
	if docs, _, err = dedupeIDs(docs, in.Log); err != nil {
		return est, err
	}
	var storedDocs map[string]*graph.Document
	if stored {
		if err := in.checkStoredOwners(ctx, docs); err != nil {
			return est, err
		}
		if storedDocs, err = in.storedDocuments(ctx, docs); err != nil {
			return est, err
		}
	}
	var texts []string
	textDoc := map[int]int{} // text -> its document's index in docs
	predicted := newPredictedChange()
	resolver := &resolve.Resolver{Store: in.Store, Tokenizer: in.Tokenizer} // extractive: a dry run calls no model
	offline := extract.NewOffline()
	for di, d := range docs {
		pieces, err := chunk.Split(in.Tokenizer, d.ID, d.Text, in.Options.Chunk)
		if err != nil {
			return est, err
		}
		est.Documents++
		for _, p := range pieces {
			est.CorpusTokens += p.Tokens
		}
		est.Chunks += len(pieces)
		if !stored {
			for _, p := range pieces {
				textDoc[len(texts)] = di
				texts = append(texts, p.Text)
				est.ExtractTokens += p.Tokens
			}
			continue
		}
		p := in.prepare(ctx, d, storedDocs[d.ID], plan.checkChunks)
		if p.err != nil {
			return est, p.err
		}
		if p.unchanged {
			est.Unchanged++
			continue
		}
		var results []resolve.ChunkResult
		for _, pc := range p.pieces {
			if _, ok := p.have[pc.ID]; !ok {
				textDoc[len(texts)] = di
				texts = append(texts, pc.Text)
				est.ExtractTokens += pc.Tokens
				predicted.newChunks++
				// Which entities a new chunk touches is known only after extraction; the
				// offline extractor's names (the proper nouns of its sentences) stand in for the
				// model's, to find the stored entities and relations the update will change.
				r, err := offline.Extract(ctx, pc.Text)
				if err != nil {
					return est, err
				}
				results = append(results, resolve.ChunkResult{ChunkID: pc.ID, DocumentID: d.ID, Seq: pc.Seq, Result: r})
			}
		}
		if len(results) > 0 || len(p.stale) > 0 {
			out, err := resolver.Resolve(ctx, results, p.stale)
			if err != nil {
				return est, fmt.Errorf("resolve the chunks %s would change: %w", d.ID, err)
			}
			predicted.add(out)
		}
	}
	if est.Documents == 0 {
		return est, fmt.Errorf("%w: %d input(s) skipped, %d ignored", ErrNothingIngested, len(skipped), len(ignored))
	}
	est.ExtractChunks = len(texts)

	x, extracts := in.Extractor.(extractionEstimator)
	e, embeds := in.Embedder.(embeddingEstimator)
	_, free := in.Extractor.(*extract.Offline) // calls no model: nothing to estimate
	est.Offline = !extracts && !embeds
	if !extracts && !free {
		if embeds {
			return est, fmt.Errorf("estimate: extractor %s cannot estimate its model calls", in.Extractor.Name())
		}
		return est, nil
	}
	if free {
		// Offline extraction with a model embedder: the chunks' embeddings are the model work
		// (entities and reports are embedded too, from a graph the dry run does not build).
		if embeds {
			est.LLM.Add(llm.StageEmbed, e.EstimateEmbeddings(texts))
			est.LLM.Assumptions = append(est.LLM.Assumptions, "offline extraction: no chat call; not counted: the embeddings of entities and reports")
		}
		return est, nil
	}
	estimate := x.Estimate
	if a, ok := x.(assumedEstimator); ok && in.NoSample {
		estimate = a.EstimateAssumed
	}
	if est.LLM, err = estimate(ctx, in.packedTexts(docs, texts, textDoc)); err != nil {
		return est, err
	}
	if embeds {
		est.LLM.Add(llm.StageEmbed, e.EstimateEmbeddings(texts))
	}
	if stored {
		if est.Unchanged > 0 {
			est.LLM.Assumptions = append(est.LLM.Assumptions, fmt.Sprintf("%d documents stored unchanged are not extracted again", est.Unchanged))
		}
		u, err := in.estimateStructure(ctx, predicted)
		if err != nil {
			return est, err
		}
		est.LLM.Merge(u)
		st, err := in.Store.Stats(ctx)
		if err != nil {
			return est, fmt.Errorf("read store counts: %w", err)
		}
		if a, why, ok := in.archEstimate(int(st.Nodes["Chunk"]) + predicted.newChunks); ok {
			est.LLM.Add(llm.StageArch, a) // the attributed communities are built whole every run
			est.LLM.Assumptions = append(est.LLM.Assumptions, why)
		}
		est.setRatio()
		return est, nil
	}
	if err := in.estimateBuild(ctx, &est, texts); err != nil {
		return est, err
	}
	est.LLM.Assumptions = append(est.LLM.Assumptions, "not counted: the embeddings of entities and reports")
	if a, why, ok := in.archEstimate(est.Chunks); ok {
		est.LLM.Add(llm.StageArch, a)
		est.LLM.Assumptions = append(est.LLM.Assumptions, why)
	}
	est.setRatio()
	return est, nil
}

// setRatio sets TokensPerCorpusToken from the chat stages of the estimate.
func (est *Estimate) setRatio() {
	if est.ExtractTokens == 0 {
		return
	}
	chat := 0
	for stage, s := range est.LLM.Stages {
		if stage != llm.StageEmbed {
			chat += s.PromptTokens + s.CompletionTokens
		}
	}
	est.TokensPerCorpusToken = float64(chat) / float64(est.ExtractTokens)
}

// packedTexts returns the texts extraction sends: texts as they are, but for the documents a
// run extracts together (extractionUnits) the passage their pack is sent as. textDoc maps a
// text to its document.
func (in *Ingester) packedTexts(docs []load.Document, texts []string, textDoc map[int]int) []string {
	unitOf := map[int]int{}
	for u, unit := range in.extractionUnits(docs) {
		if len(unit) > 1 {
			for _, d := range unit {
				unitOf[d] = u
			}
		}
	}
	if len(unitOf) == 0 {
		return texts
	}
	var out []string
	for i := 0; i < len(texts); {
		u, packed := unitOf[textDoc[i]]
		j := i + 1
		for packed && j < len(texts) && unitOf[textDoc[j]] == u {
			if _, ok := unitOf[textDoc[j]]; !ok {
				break
			}
			j++
		}
		if j-i > 1 {
			out = append(out, extract.PackText(texts[i:j]))
		} else {
			out = append(out, texts[i])
		}
		i = j
	}
	return out
}
