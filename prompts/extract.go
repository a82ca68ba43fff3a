package prompts

import (
	"errors"
	"strconv"
	"strings"
)

// The tuple format of extraction answers (docs/ARCHITECTURE.md#ingestion-stages).
const (
	FieldDelimiter  = "<|>"
	RecordDelimiter = "##"
	CompleteMarker  = "<|COMPLETE|>"
)

// ExtractInput is the data of an extraction prompt.
type ExtractInput struct {
	Text        string   // the chunk text
	EntityTypes []string // allowed entity types; must not be empty
	// JSON asks for the records as one JSON object (ExtractionSchema) instead of delimited
	// lines, for servers that enforce a schema.
	JSON bool
}

type extractData struct {
	Passage       Fenced
	EntityTypes   []string
	Entities      []EntityRecord
	WantEntities  bool
	WantRelations bool
	JSON          bool
}

func newExtractData(in ExtractInput, entities, relations bool) (extractData, error) {
	if len(in.EntityTypes) == 0 {
		return extractData{}, errors.New("extraction prompt: no entity types")
	}
	return extractData{
		Passage:       Fence(PassageLabel, in.Text),
		EntityTypes:   in.EntityTypes,
		WantEntities:  entities,
		WantRelations: relations,
		JSON:          in.JSON,
	}, nil
}

// Combined renders the one-pass prompt that asks for entities and relationships together.
func (s *Set) Combined(in ExtractInput) (Prompt, error) {
	d, err := newExtractData(in, true, true)
	if err != nil {
		return Prompt{}, err
	}
	return s.renderPair("extract_combined", d)
}

// Entities renders the first prompt of the two-pass (HiRAG) extraction: typed entities only.
func (s *Set) Entities(in ExtractInput) (Prompt, error) {
	d, err := newExtractData(in, true, false)
	if err != nil {
		return Prompt{}, err
	}
	return s.renderPair("extract_entities", d)
}

// Relations renders the second prompt of the two-pass extraction: relationships among the
// entities found by the first pass.
func (s *Set) Relations(in ExtractInput, entities []EntityRecord) (Prompt, error) {
	d, err := newExtractData(in, false, true)
	if err != nil {
		return Prompt{}, err
	}
	d.Entities = entities
	return s.renderPair("extract_relations", d)
}

// GleanKind says which records a gleaning follow-up asks for.
type GleanKind int

// Gleaning follow-ups for the combined pass and the two passes of the two-pass mode.
const (
	GleanAll GleanKind = iota
	GleanEntities
	GleanRelations
)

// Glean renders the follow-up user message sent after an extraction answer, in the same
// conversation, asking for records that were missed.
func (s *Set) Glean(kind GleanKind) (string, error) {
	what := "entities and relationships"
	switch kind {
	case GleanEntities:
		what = "entities"
	case GleanRelations:
		what = "relationships"
	}
	return s.render("glean.user", struct{ What string }{what})
}

// FormatRecords writes records in the tuple format, ending with the completion marker. Fields
// are cleaned the way ParseRecords cleans them, so parsing the output gives the records back.
func FormatRecords(entities []EntityRecord, relations []RelationshipRecord) string {
	var b strings.Builder
	for _, e := range entities {
		b.WriteString(`("entity"`)
		for _, f := range []string{
			cleanName(defang(e.Name)), strings.ToLower(cleanName(defang(e.Type))), CleanText(defang(e.Description)),
		} {
			b.WriteString(FieldDelimiter)
			b.WriteString(f)
		}
		b.WriteString(")" + RecordDelimiter + "\n")
	}
	for _, r := range relations {
		b.WriteString(`("relationship"`)
		for _, f := range []string{cleanName(defang(r.Source)), cleanName(defang(r.Target)), CleanText(defang(r.Description))} {
			b.WriteString(FieldDelimiter)
			b.WriteString(f)
		}
		b.WriteString(FieldDelimiter)
		b.WriteString(strconv.FormatFloat(r.Strength, 'g', -1, 64))
		b.WriteString(")" + RecordDelimiter + "\n")
	}
	b.WriteString(CompleteMarker)
	return b.String()
}

// defang removes delimiter sequences from a field so it cannot end its record early.
func defang(s string) string {
	return strings.NewReplacer(FieldDelimiter, " ", RecordDelimiter, "#", CompleteMarker, " ").Replace(s)
}
