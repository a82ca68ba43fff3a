package prompts

import (
	"encoding/json"
)

// The JSON schemas below are sent with a task's prompt to servers that enforce them (see
// llm.Structured), and describe exactly what each task's parser reads. Arrays and strings are
// bounded: a small model under a grammar otherwise tends to repeat items until the token cap
// cuts the JSON, which no parser can read.
const (
	maxSchemaEntities  = 30
	maxSchemaRelations = 40
	maxSchemaText      = 400 // characters of one description
)

// ExtractionSchema is the schema of an extraction answer: the entities of the given types, the
// relationships, or both, as the prompt asked for.
func ExtractionSchema(entityTypes []string, entities, relations bool) json.RawMessage {
	props := map[string]any{}
	var required []string
	if entities {
		props["entities"] = arrayOf(object(map[string]any{
			"name":        text(120),
			"type":        map[string]any{"type": "string", "enum": entityTypes},
			"description": text(maxSchemaText),
		}, "name", "type", "description"), maxSchemaEntities)
		required = append(required, "entities")
	}
	if relations {
		props["relationships"] = arrayOf(object(map[string]any{
			"source":      text(120),
			"target":      text(120),
			"description": text(maxSchemaText),
			"strength":    map[string]any{"type": "integer", "minimum": 1, "maximum": 10},
		}, "source", "target", "description", "strength"), maxSchemaRelations)
		required = append(required, "relationships")
	}
	return mustJSON(object(props, required...))
}

// ReportSchema is the schema of a community report answer.
func ReportSchema() json.RawMessage {
	return mustJSON(object(map[string]any{
		"title":              text(120),
		"summary":            text(1200),
		"rating":             map[string]any{"type": "number", "minimum": 0, "maximum": 10},
		"rating_explanation": text(maxSchemaText),
		"findings": arrayOf(object(map[string]any{
			"summary":     text(200),
			"explanation": text(800),
		}, "summary", "explanation"), 10),
	}, "title", "summary", "rating", "rating_explanation", "findings"))
}

// PointsSchema is the schema of a key-points answer of global search's map step.
func PointsSchema() json.RawMessage {
	return mustJSON(object(map[string]any{
		"points": arrayOf(object(map[string]any{
			"description": text(600),
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

func text(maxLen int) map[string]any {
	return map[string]any{"type": "string", "maxLength": maxLen}
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // the schemas are built from literals above; failing here is a programming error
	}
	return b
}
