package llm

import (
	"context"
	"sort"
	"sync"
)

// Stage labels used by strata's packages. Any string works; these keep tables consistent.
const (
	StageExtract   = "extract"   // entity (or combined) extraction pass
	StageRelations = "relations" // relation pass of two-pass extraction
	StageGlean     = "glean"     // gleaning follow-ups
	StageSummarize = "summarize" // description merging
	StageLayers    = "layers"    // HiIndex summary entities
	StageAggregate = "aggregate" // LeanRAG relations between summary entities
	StageReport    = "report"    // community reports
	StageArch      = "arch"      // attributed-community summaries (ingest --arch)
	StageMap       = "map"       // global search key points
	StageAnswer    = "answer"    // answer generation
	StageEmbed     = "embed"     // embeddings
	StageOther     = "chat"      // calls with no stage
)

type meterKey struct{}

// WithMeter makes calls made with ctx also count in m, besides the client's own meter. A server
// uses it to report the usage of one query.
func WithMeter(ctx context.Context, m *Meter) context.Context {
	prev, _ := ctx.Value(meterKey{}).([]*Meter)
	next := append(append([]*Meter(nil), prev...), m)
	return context.WithValue(ctx, meterKey{}, next)
}

func metersFrom(ctx context.Context) []*Meter {
	m, _ := ctx.Value(meterKey{}).([]*Meter)
	return m
}

// StageUsage counts the work of one stage. Calls and tokens are what the API was asked for and
// billed; cache hits cost nothing, and SavedTokens says what they would have cost.
type StageUsage struct {
	LLMCalls         int `json:"llm_calls"`
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	EmbeddingCalls   int `json:"embedding_calls"`
	EmbeddingTokens  int `json:"embedding_tokens"`
	CacheHits        int `json:"cache_hits"`
	SavedTokens      int `json:"saved_tokens"`
	Retries          int `json:"retries"`
	Failures         int `json:"failures"`
	// FailedTokens estimates what attempts that failed were sent and had received when they
	// failed (prompt and partial answer): work a paid API may bill although no answer came.
	FailedTokens int `json:"failed_tokens"`
	// Truncated counts answers cut at their token cap.
	Truncated int `json:"truncated"`
	// Answers the caller's parser could read only in part (Salvaged) or not at all (Unreadable),
	// and the records or findings lost in them (DroppedRecords); see ChatRequest.Judge. Neither
	// kind of answer is cached.
	Salvaged       int `json:"salvaged"`
	Unreadable     int `json:"unreadable"`
	DroppedRecords int `json:"dropped_records"`
}

// Damaged is the number of answers that could not be read in full.
func (s StageUsage) Damaged() int { return s.Salvaged + s.Unreadable }

// Add adds the counts of o to s, as the meter adds a call's: for callers that sum the stats of
// two clients (a judge with its own endpoint).
func (s *StageUsage) Add(o StageUsage) {
	s.LLMCalls += o.LLMCalls
	s.PromptTokens += o.PromptTokens
	s.CompletionTokens += o.CompletionTokens
	s.EmbeddingCalls += o.EmbeddingCalls
	s.EmbeddingTokens += o.EmbeddingTokens
	s.CacheHits += o.CacheHits
	s.SavedTokens += o.SavedTokens
	s.Retries += o.Retries
	s.Failures += o.Failures
	s.FailedTokens += o.FailedTokens
	s.Truncated += o.Truncated
	s.Salvaged += o.Salvaged
	s.Unreadable += o.Unreadable
	s.DroppedRecords += o.DroppedRecords
}

// Stats is a snapshot of a Meter: totals and the per-stage breakdown.
type Stats struct {
	Total  StageUsage            `json:"total"`
	Stages map[string]StageUsage `json:"stages"`
	// Batch counts the batch jobs of a client in batch mode (Config.Batch); nil otherwise.
	Batch *BatchStats `json:"batch,omitempty"`
}

// StageNames lists the stages of s in pipeline order, for printing; unknown stages follow
// alphabetically.
func (s Stats) StageNames() []string { return SortStages(s.Stages) }

// Meter accumulates usage per stage. The zero value is ready; it is safe for concurrent use.
type Meter struct {
	mu     sync.Mutex
	stages map[string]*StageUsage
}

// NewMeter returns an empty meter.
func NewMeter() *Meter { return &Meter{} }

// Add records o under stage.
func (m *Meter) Add(stage string, o StageUsage) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.stages == nil {
		m.stages = map[string]*StageUsage{}
	}
	s := m.stages[stage]
	if s == nil {
		s = &StageUsage{}
		m.stages[stage] = s
	}
	s.Add(o)
}

// Stats returns a snapshot.
func (m *Meter) Stats() Stats {
	m.mu.Lock()
	defer m.mu.Unlock()
	st := Stats{Stages: make(map[string]StageUsage, len(m.stages))}
	for name, s := range m.stages {
		st.Stages[name] = *s
		st.Total.Add(*s)
	}
	return st
}

// SortStages lists the stages of m in pipeline order; unknown stages follow alphabetically.
func SortStages[V any](m map[string]V) []string {
	stageOrder := []string{
		StageExtract, StageRelations, StageGlean, StageSummarize, StageEmbed, StageLayers, StageAggregate, StageReport, StageArch,
		StageMap, StageAnswer, StageOther,
	}
	rank := func(s string) int {
		for i, o := range stageOrder {
			if o == s {
				return i
			}
		}
		return len(stageOrder)
	}
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		ri, rj := rank(names[i]), rank(names[j])
		if ri != rj {
			return ri < rj
		}
		return names[i] < names[j]
	})
	return names
}
