package llm

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Structured asks for an answer that follows a JSON schema. Servers that enforce schemas
// (OpenAI's structured outputs, llama.cpp and vLLM through a grammar, Ollama's format) then
// cannot return an answer the parser cannot read, which small local models otherwise do often.
type Structured struct {
	// Name names the schema (OpenAI requires one).
	Name string
	// Schema is the JSON Schema of the answer object.
	Schema json.RawMessage
	// Messages are sent instead of ChatRequest.Messages whenever the answer is asked for as
	// JSON: they describe the JSON answer, where the plain messages may describe a text format
	// for servers that take neither a schema nor JSON mode.
	Messages []Message
}

// Format says how a request asks for structured output. Servers differ: OpenAI, vLLM, llama.cpp
// and Ollama's OpenAI endpoint take response_format json_schema; llama-cpp-python takes
// json_object with a "schema" beside the type; some take only json_object, some nothing.
type Format int

// Formats, from the most to the least constrained. The client starts at the one configured and
// steps down, for the rest of the process, each time the server refuses one.
const (
	FormatJSONSchema       Format = iota // response_format {"type":"json_schema","json_schema":{...}}
	FormatJSONObjectSchema               // response_format {"type":"json_object","schema":{...}}
	FormatJSONObject                     // response_format {"type":"json_object"}, the schema described in the prompt only
	FormatText                           // no response_format: the text prompt
)

var formatNames = []string{"json-schema", "json-object-schema", "json-object", "text"}

func (f Format) String() string {
	if f < 0 || int(f) >= len(formatNames) {
		return fmt.Sprintf("Format(%d)", int(f))
	}
	return formatNames[f]
}

// ParseFormat reads a --llm-structured value: auto (the same as json-schema: start there and step
// down when refused), json-schema, json-object-schema, json-object or text (off).
func ParseFormat(s string) (Format, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "auto", "json-schema":
		return FormatJSONSchema, nil
	case "json-object-schema":
		return FormatJSONObjectSchema, nil
	case "json-object", "json":
		return FormatJSONObject, nil
	case "text", "off", "none":
		return FormatText, nil
	}
	return 0, fmt.Errorf("unknown structured-output format %q (want auto, json-schema, json-object-schema, json-object or text)", s)
}

// formatFor is the format req is sent in when the server accepts at most f.
func formatFor(req ChatRequest, f Format) Format {
	switch {
	case req.Structured != nil:
		return f
	case req.JSON && f <= FormatJSONObject:
		return FormatJSONObject
	}
	return FormatText
}

// responseFormat is the response_format field for f, nil for FormatText.
func responseFormat(req ChatRequest, f Format) any {
	switch f {
	case FormatJSONSchema:
		return map[string]any{"type": "json_schema", "json_schema": map[string]any{
			"name": req.Structured.Name, "schema": req.Structured.Schema, "strict": false}}
	case FormatJSONObjectSchema:
		return map[string]any{"type": "json_object", "schema": req.Structured.Schema}
	case FormatJSONObject:
		return map[string]any{"type": "json_object"}
	}
	return nil
}

// messagesFor are the messages req is sent with in format f.
func messagesFor(req ChatRequest, f Format) []Message {
	if req.Structured != nil && f != FormatText {
		return req.Structured.Messages
	}
	return req.Messages
}

// cacheForm is the part of the cache key that says how the answer was constrained. Both schema
// formats enforce the same schema and share it, so that a store built through one server is
// reused through another.
func cacheForm(f Format) string {
	switch f {
	case FormatJSONSchema, FormatJSONObjectSchema:
		return "schema"
	case FormatJSONObject:
		return "json"
	}
	return "text"
}
