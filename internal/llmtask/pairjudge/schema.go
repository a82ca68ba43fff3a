package pairjudge

import "encoding/json"

// Schema is the JSON schema of a verdict, sent to servers that enforce one (llm.Structured), in
// the style of prompts/schema.go: exactly what Parse reads, each dimension an object whose
// reason comes before its winner, so that a model that writes in order reasons before it
// decides.
func Schema() json.RawMessage {
	dim := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"reason": map[string]any{"type": "string"},
			"winner": map[string]any{"type": "string", "enum": []string{string(WinnerA), string(WinnerB), string(Tie)}},
		},
		"required": []string{"reason", "winner"},
	}
	props := map[string]any{}
	for _, d := range Dimensions {
		props[d] = dim
	}
	b, err := json.Marshal(map[string]any{"type": "object", "properties": props, "required": Dimensions})
	if err != nil {
		panic(err) // built from literals above; failing here is a programming error
	}
	return b
}
