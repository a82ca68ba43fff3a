// Package extraction is the model task that reads entities and relationships out of a chunk
// (stages llm.StageExtract, llm.StageRelations and llm.StageGlean): its prompts
// (templates/extract_*.tmpl and the gleaning follow-up templates/glean.tmpl), the conversation
// of one prompt and its gleaning rounds, and the judging of the answers. The record format and
// its parser (prompts.ParseRecords, prompts.ExtractionSchema) stay in package prompts, which
// summary entities share. Merging the records of one chunk is the stage's (pipeline/extract).
package extraction

import (
	"embed"
	"errors"

	"github.com/stratarag/strata/prompts"
)

// Task titles of the prompts, by which their requests are recognized (prompts.TaskOf).
const (
	TaskCombined  = "Entity and relationship extraction"
	TaskEntities  = "Entity extraction"
	TaskRelations = "Relationship extraction"
)

// FollowUp heads the gleaning follow-up message.
const FollowUp = "Follow-up: missed records"

// Label fences the passage in the prompts.
const Label = "PASSAGE"

// The templates keep the paths (templates/…) under which their digest, Version, was first
// taken: a store records it, so the same prompts must give the same value.
//
//go:embed templates/*.tmpl
var templateFS embed.FS

// templates are parsed once from the embedded files; a parsed template is immutable and safe
// for concurrent use.
var templates = prompts.Templates(templateFS, "templates/*.tmpl")

// version is the digest of the templates, taken once.
var version = prompts.Digest(templateFS, "templates/extract_*.tmpl", "templates/glean.tmpl")

// Version is a short digest of the extraction templates (extract_*, glean and the shared
// record format rules). Extractors put it in their Name, so that a store refuses to mix what two
// extraction prompts found, and a changed prompt is visible in the store and in logs.
func Version() string { return version }

// Input is the data of an extraction prompt.
type Input struct {
	Text        string   // the chunk text
	EntityTypes []string // allowed entity types; must not be empty
	// JSON asks for the records as one JSON object (prompts.ExtractionSchema) instead of
	// delimited lines, for servers that enforce a schema.
	JSON bool
	// Brief asks for names, types and strengths without descriptions: the caller describes what
	// was found with the passage's own sentences, so the model writes a few tokens per record
	// instead of a sentence or three.
	Brief bool
}

// Kind says which records a prompt, and its gleaning follow-up, asks for.
type Kind int

// The combined pass and the two passes of the two-pass mode.
const (
	KindCombined Kind = iota
	KindEntities
	KindRelations
)

// wants says which records a kind asks for.
func (k Kind) wants() (entities, relations bool) {
	switch k {
	case KindEntities:
		return true, false
	case KindRelations:
		return false, true
	}
	return true, true
}

type data struct {
	Passage       prompts.Fenced
	EntityTypes   []string
	Entities      []prompts.EntityRecord
	WantEntities  bool
	WantRelations bool
	JSON          bool
	Brief         bool
}

func newData(in Input, entities, relations bool) (data, error) {
	if len(in.EntityTypes) == 0 {
		return data{}, errors.New("extraction prompt: no entity types")
	}
	return data{
		Passage:       prompts.Fence(Label, in.Text),
		EntityTypes:   in.EntityTypes,
		WantEntities:  entities,
		WantRelations: relations,
		JSON:          in.JSON,
		Brief:         in.Brief,
	}, nil
}

// Combined renders the one-pass prompt that asks for entities and relationships together.
func Combined(in Input) (prompts.Prompt, error) {
	d, err := newData(in, true, true)
	if err != nil {
		return prompts.Prompt{}, err
	}
	return prompts.RenderPair(templates, "extract_combined", d)
}

// Entities renders the first prompt of the two-pass (HiRAG) extraction: typed entities only.
func Entities(in Input) (prompts.Prompt, error) {
	d, err := newData(in, true, false)
	if err != nil {
		return prompts.Prompt{}, err
	}
	return prompts.RenderPair(templates, "extract_entities", d)
}

// Relations renders the second prompt of the two-pass extraction: relationships among the
// entities found by the first pass.
func Relations(in Input, entities []prompts.EntityRecord) (prompts.Prompt, error) {
	d, err := newData(in, false, true)
	if err != nil {
		return prompts.Prompt{}, err
	}
	d.Entities = entities
	return prompts.RenderPair(templates, "extract_relations", d)
}

// Prompt renders the prompt of kind; entities are those the relation prompt lists.
func Prompt(kind Kind, in Input, entities []prompts.EntityRecord) (prompts.Prompt, error) {
	switch kind {
	case KindEntities:
		return Entities(in)
	case KindRelations:
		return Relations(in, entities)
	}
	return Combined(in)
}

// Glean renders the follow-up user message sent after an extraction answer of kind, in the
// same conversation, asking for records that were missed.
func Glean(kind Kind) (string, error) {
	what := "entities and relationships"
	switch kind {
	case KindEntities:
		what = "entities"
	case KindRelations:
		what = "relationships"
	}
	return prompts.Render(templates, "glean.user", struct{ What string }{what})
}
