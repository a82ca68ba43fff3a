package prompts

import (
	"encoding/json"
)

// The JSON schemas below are sent with a task's prompt to servers that enforce them (see
// llm.Structured), and describe exactly what each task's parser reads. Arrays are bounded: a
// small model under a grammar otherwise tends to repeat items until the token cap cuts the
// JSON, which no parser can read. Strings are not: llama-cpp-python's grammar builder unrolls
// a maxLength into one nested rule per character, and a report's few such bounds crashed its
// server.
const (
	maxSchemaEntities  = 30
	maxSchemaRelations = 40
)

// ExtractionSchema is the schema of an extraction answer: the entities of the given types, the
// relationships, or both, as the prompt asked for; with descriptions, or (a brief prompt) names,
// types and strengths only.
func ExtractionSchema(entityTypes []string, entities, relations, descriptions bool) json.RawMessage {
	props := map[string]any{}
	var required []string
	if entities {
		fields := map[string]any{"name": text(), "type": map[string]any{"type": "string", "enum": entityTypes}}
		names := []string{"name", "type"}
		if descriptions {
			fields["description"] = text()
			names = append(names, "description")
		}
		props["entities"] = arrayOf(object(fields, names...), maxSchemaEntities)
		required = append(required, "entities")
	}
	if relations {
		fields := map[string]any{
			"source":   text(),
			"target":   text(),
			"strength": map[string]any{"type": "integer", "minimum": 1, "maximum": 10},
		}
		names := []string{"source", "target"}
		if descriptions {
			fields["description"] = text()
			names = append(names, "description")
		}
		props["relationships"] = arrayOf(object(fields, append(names, "strength")...), maxSchemaRelations)
		required = append(required, "relationships")
	}
	return mustJSON(object(props, required...))
}

// ReportSchema is the schema of a community report answer.
func ReportSchema() json.RawMessage {
	return mustJSON(object(map[string]any{
		"title":              text(),
		"summary":            text(),
		"rating":             map[string]any{"type": "number", "minimum": 0, "maximum": 10},
		"rating_explanation": text(),
		"findings": arrayOf(object(map[string]any{
			"summary":     text(),
			"explanation": text(),
		}, "summary", "explanation"), 10),
	}, "title", "summary", "rating", "rating_explanation", "findings"))
}

// TitleSummarySchema is the schema of an answer holding a title and a summary (an attributed
// community's).
func TitleSummarySchema() json.RawMessage {
	return mustJSON(object(map[string]any{"title": text(), "summary": text()}, "title", "summary"))
}

// PointsSchema is the schema of a key-points answer of global search's map step.
func PointsSchema() json.RawMessage {
	return mustJSON(object(map[string]any{
		"points": arrayOf(object(map[string]any{
			"description": text(),
			"score":       map[string]any{"type": "integer", "minimum": 0, "maximum": 100},
		}, "description", "score"), 20),
	}, "points"))
}

func object(props map[string]any, required ...string) map[string]any {
	return map[string]any{"type": "object", "properties": props, "required": required}
}

func arrayOf(items map[string]any, maxItems int) map[string]any {
	return map[string]any{"type": "array", "items": items, "maxItems": maxItems}
}

func text() map[string]any { return map[string]any{"type": "string"} }

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // the schemas are built from literals above; failing here is a programming error
	}
	return b
}
