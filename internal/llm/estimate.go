package llm

import "github.com/stratarag/strata/internal/embedding"

// StageEstimate is the predicted work of one stage in a dry run.
type StageEstimate struct {
	Calls            int `json:"calls"`             // calls still to pay for
	CachedCalls      int `json:"cached_calls"`      // calls the cache already answers
	PromptTokens     int `json:"prompt_tokens"`     // of the calls still to pay for
	CompletionTokens int `json:"completion_tokens"` // of the calls still to pay for (estimated)
	EmbeddingTokens  int `json:"embedding_tokens"`
}

func (s *StageEstimate) add(o StageEstimate) {
	s.Calls += o.Calls
	s.CachedCalls += o.CachedCalls
	s.PromptTokens += o.PromptTokens
	s.CompletionTokens += o.CompletionTokens
	s.EmbeddingTokens += o.EmbeddingTokens
}

// Estimate is a dry-run prediction of LLM work, per stage. The zero value is ready to use.
type Estimate struct {
	Stages map[string]StageEstimate `json:"stages"`
	// Records is how many entities and relations the calls to pay for are predicted to find
	// (an extraction's estimate): what the stages after extraction grow with.
	Records int `json:"records,omitempty"`
	// Assumptions lists what the numbers rest on, for printing next to them.
	Assumptions []string `json:"assumptions,omitempty"`
}

// Add adds o to stage.
func (e *Estimate) Add(stage string, o StageEstimate) {
	if e.Stages == nil {
		e.Stages = map[string]StageEstimate{}
	}
	s := e.Stages[stage]
	s.add(o)
	e.Stages[stage] = s
}

// Merge adds every stage of o to e.
func (e *Estimate) Merge(o Estimate) {
	for name, s := range o.Stages {
		e.Add(name, s)
	}
	e.Records += o.Records
	e.Assumptions = append(e.Assumptions, o.Assumptions...)
}

// StageNames lists the stages of e in pipeline order, for printing; unknown stages follow
// alphabetically.
func (e Estimate) StageNames() []string { return SortStages(e.Stages) }

// Total sums the stages.
func (e Estimate) Total() StageEstimate {
	var t StageEstimate
	for _, s := range e.Stages {
		t.add(s)
	}
	return t
}

// Price is what a provider charges, in any currency, per million tokens.
type Price struct {
	PromptPerMillion     float64
	CompletionPerMillion float64
	EmbeddingPerMillion  float64
}

// Cost prices the work still to pay for.
func (e Estimate) Cost(p Price) float64 {
	t := e.Total()
	return (float64(t.PromptTokens)*p.PromptPerMillion + float64(t.CompletionTokens)*p.CompletionPerMillion +
		float64(t.EmbeddingTokens)*p.EmbeddingPerMillion) / 1e6
}

// EstimateEmbeddings predicts the embedding requests for texts: uncached texts in batches of
// batch. cached, if not nil, reports texts whose vectors are already cached.
func EstimateEmbeddings(tok Counter, texts []string, batch int, cached func(string) bool) StageEstimate {
	if batch <= 0 {
		batch = DefaultEmbeddingBatch
	}
	var e StageEstimate
	todo := 0
	for _, t := range texts {
		if cached != nil && cached(t) {
			continue
		}
		todo++
		e.EmbeddingTokens += tok.Count(t)
	}
	e.Calls = (todo + batch - 1) / batch
	e.CachedCalls = 0
	return e
}

// HasVector reports whether the embedding of text is cached, without calling anything.
func (c *Client) HasVector(text string) bool {
	_, ok := c.cachedVector(embedding.Passage, text)
	return ok
}

// EstimateEmbeddings predicts the embedding requests of c.Embed(texts).
func (c *Client) EstimateEmbeddings(texts []string) StageEstimate {
	return EstimateEmbeddings(c.tok, texts, c.cfg.EmbeddingBatch, c.HasVector)
}
