// Package extract finds entities and relations in chunks of text. Two extractors share one output
// type: the offline extractor (deterministic, no model) and the LLM extractor.
package extract

import "context"

// Entity is an entity as found in one chunk, before resolution.
type Entity struct {
	Name        string
	Type        string
	Description string
}

// Relation is a relation as found in one chunk, before resolution. Strength is the model's (or the
// offline heuristic's) confidence-weighted strength; resolution adds strengths up across chunks.
type Relation struct {
	Source      string // entity name as written
	Target      string
	Description string
	Strength    float64
}

// Result is what an extractor found in one chunk.
type Result struct {
	Entities  []Entity
	Relations []Relation
	// Dropped counts malformed records that were skipped.
	Dropped int
}

// Extractor extracts entities and relations from the text of one chunk.
type Extractor interface {
	Extract(ctx context.Context, text string) (Result, error)
	// Name identifies the extractor and its configuration (model, prompt version) in logs and in
	// the store, so a change of extractor is visible.
	Name() string
}

// DefaultEntityTypes are the entity types HiRAG extracts (docs/ARCHITECTURE.md#ingestion-stages).
var DefaultEntityTypes = []string{
	"organization", "person", "location", "event", "product", "technology", "industry",
	"mathematics", "social sciences",
}
