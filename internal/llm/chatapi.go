package llm

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// chatWire is the body of a chat completion request. strata writes it itself rather than through
// go-openai because servers disagree on how to ask for structured output (response_format
// json_schema, or json_object with a schema beside it) and go-openai can send only the first.
type chatWire struct {
	Model               string         `json:"model"`
	Messages            []Message      `json:"messages"`
	MaxTokens           int            `json:"max_tokens,omitempty"`
	MaxCompletionTokens int            `json:"max_completion_tokens,omitempty"`
	Temperature         *float32       `json:"temperature,omitempty"`
	ResponseFormat      any            `json:"response_format,omitempty"`
	Stream              bool           `json:"stream"`
	StreamOptions       *streamOptions `json:"stream_options,omitempty"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

type wireUsage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
}

// wireAnswer is what one attempt brought back.
type wireAnswer struct {
	content      string
	finishReason string
	usage        wireUsage
}

// chatChunk is one server-sent event of a streamed answer, or (from a server that does not
// stream) the whole answer: the fields of both shapes are read.
type chatChunk struct {
	Choices []struct {
		Delta        struct{ Content string } `json:"delta"`
		Message      struct{ Content string } `json:"message"`
		FinishReason *string                  `json:"finish_reason"`
	} `json:"choices"`
	Usage *wireUsage      `json:"usage"`
	Error json.RawMessage `json:"error"`
}

// postChat sends one chat completion request, streamed, and collects the answer. Streaming is
// what lets the attempt's watchdog tell a server that is still answering from one that stopped:
// every event kicks it. onDelta, when set, receives each piece of content as it arrives.
func (c *Client) postChat(ctx context.Context, body chatWire, onDelta func(string)) (wireAnswer, error) {
	body.Stream = true
	body.StreamOptions = &streamOptions{IncludeUsage: true}
	b, err := json.Marshal(body)
	if err != nil {
		return wireAnswer{}, fmt.Errorf("encode chat request: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.cfg.BaseURL+"/chat/completions", bytes.NewReader(b))
	if err != nil {
		return wireAnswer{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	if c.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.cfg.APIKey)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return wireAnswer{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		raw, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		return wireAnswer{}, apiError(resp.StatusCode, raw)
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != "text/event-stream" {
		// A server that ignores "stream" answers with one JSON object.
		raw, err := io.ReadAll(resp.Body)
		if err != nil {
			return wireAnswer{}, err
		}
		var ch chatChunk
		if err := json.Unmarshal(raw, &ch); err != nil {
			return wireAnswer{}, fmt.Errorf("read chat answer: %w", err)
		}
		return collect(wireAnswer{}, ch, resp.StatusCode, onDelta)
	}
	var out wireAnswer
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	done, events := false, 0
	for sc.Scan() {
		line := sc.Text()
		data, ok := strings.CutPrefix(line, "data:")
		if !ok {
			continue // comments, event names and the blank lines between events
		}
		data = strings.TrimSpace(data)
		if data == "[DONE]" {
			done = true
			break
		}
		events++
		var ch chatChunk
		if err := json.Unmarshal([]byte(data), &ch); err != nil {
			return out, fmt.Errorf("read chat stream: %w", err)
		}
		if out, err = collect(out, ch, resp.StatusCode, onDelta); err != nil {
			return out, err
		}
	}
	if err := sc.Err(); err != nil {
		return out, err
	}
	if events == 0 && !done {
		// llama-cpp-python answers a prompt longer than its window this way: 200, then nothing.
		// Sending it again would get the same.
		return out, permanent{errors.New("the server accepted the request and closed the stream without a word; a prompt longer than its context window does this with llama-cpp-python: set --llm-context to the server's n_ctx")}
	}
	if !done && out.finishReason == "" {
		return out, fmt.Errorf("chat stream ended before the answer did: %w", io.ErrUnexpectedEOF)
	}
	if out.content == "" && out.finishReason == "" {
		return out, errEmptyResponse
	}
	return out, nil
}

// collect adds one chunk to the answer so far.
func collect(out wireAnswer, ch chatChunk, status int, onDelta func(string)) (wireAnswer, error) {
	if len(ch.Error) > 0 && string(ch.Error) != "null" {
		// llama.cpp reports an error found after the stream started as an event.
		return out, apiError(status, append(append([]byte(`{"error":`), ch.Error...), '}'))
	}
	if ch.Usage != nil {
		out.usage = *ch.Usage
	}
	for _, choice := range ch.Choices[:min(1, len(ch.Choices))] {
		piece := choice.Delta.Content + choice.Message.Content
		if piece != "" {
			out.content += piece
			if onDelta != nil {
				onDelta(piece)
			}
		}
		if choice.FinishReason != nil && *choice.FinishReason != "" {
			out.finishReason = *choice.FinishReason
		}
	}
	return out, nil
}

// serverError holds what error bodies carry beyond OpenAI's fields: llama.cpp's prompt size and
// context window on an overflow.
type serverError struct {
	Message       string `json:"message"`
	Type          string `json:"type"`
	Code          any    `json:"code"`
	PromptTokens  int    `json:"n_prompt_tokens"`
	ContextWindow int    `json:"n_ctx"`
}

// apiError turns an error response into an *openai.APIError (which the retry rules read) wrapped
// with the numbers of a context overflow when the server gave them. Bodies come as OpenAI's
// {"error":{...}}, {"error":"text"}, FastAPI's {"detail":...} or plain text.
func apiError(status int, body []byte) error {
	var env struct {
		Error  json.RawMessage `json:"error"`
		Detail json.RawMessage `json:"detail"`
	}
	var se serverError
	if json.Unmarshal(body, &env) == nil {
		switch {
		case len(env.Error) > 0 && env.Error[0] == '{':
			_ = json.Unmarshal(env.Error, &se)
		case len(env.Error) > 0:
			_ = json.Unmarshal(env.Error, &se.Message)
		case len(env.Detail) > 0:
			se.Message = strings.Trim(string(env.Detail), `"`)
		}
	}
	if se.Message == "" {
		se.Message = strings.TrimSpace(string(body))
	}
	if len(se.Message) > 600 {
		se.Message = se.Message[:600] + "…"
	}
	apiErr := &openai.APIError{HTTPStatusCode: status, Message: se.Message, Type: se.Type, Code: se.Code}
	if o, ok := overflowOf(apiErr, se); ok {
		return o
	}
	return apiErr
}

// ContextOverflowError is a request the server refused because prompt and answer do not fit its
// context window. It is never retried as it is.
type ContextOverflowError struct {
	PromptTokens  int // as the server counted them; 0 when it did not say
	ContextWindow int // the server's window; 0 when it did not say
	Err           *openai.APIError
}

func (e *ContextOverflowError) Error() string {
	nums := ""
	if e.PromptTokens > 0 && e.ContextWindow > 0 {
		nums = fmt.Sprintf(" (%d prompt tokens, window %d)", e.PromptTokens, e.ContextWindow)
	}
	return fmt.Sprintf("prompt too long for the model's context window%s: %s (a smaller --chunk-size, or --max-context-tokens for queries, shortens it; --llm-context tells strata the server's window)", nums, e.Err.Message)
}

func (e *ContextOverflowError) Unwrap() error { return e.Err }

// overflowOf recognises a context overflow by the server's type or code (llama.cpp's
// exceed_context_size_error, OpenAI's context_length_exceeded) or its wording (llama-cpp-python,
// vLLM, Ollama).
func overflowOf(apiErr *openai.APIError, se serverError) (*ContextOverflowError, bool) {
	if apiErr.HTTPStatusCode != http.StatusBadRequest && apiErr.HTTPStatusCode != http.StatusRequestEntityTooLarge &&
		apiErr.HTTPStatusCode != http.StatusUnprocessableEntity && apiErr.HTTPStatusCode != http.StatusInternalServerError {
		return nil, false
	}
	code, _ := se.Code.(string)
	msg := strings.ToLower(se.Message)
	switch {
	case se.Type == "exceed_context_size_error", code == "context_length_exceeded":
	case strings.Contains(msg, "context") && (strings.Contains(msg, "exceed") || strings.Contains(msg, "too long") ||
		strings.Contains(msg, "maximum") || strings.Contains(msg, "too many tokens")):
	default:
		return nil, false
	}
	o := &ContextOverflowError{PromptTokens: se.PromptTokens, ContextWindow: se.ContextWindow, Err: apiErr}
	if o.PromptTokens == 0 || o.ContextWindow == 0 {
		o.PromptTokens, o.ContextWindow = overflowNumbers(se.Message)
	}
	return o, true
}

// overflowNumbers reads the prompt size and the window from the usual wordings: llama-cpp-python's
// "Requested tokens (5000) exceed context window of 4096", llama.cpp's "request (971 tokens)
// exceeds the available context size (512 tokens)", OpenAI's "maximum context length is 8192
// tokens. However, your messages resulted in 9000 tokens". It returns zeros when unsure.
func overflowNumbers(msg string) (prompt, window int) {
	var nums []int
	for _, f := range strings.FieldsFunc(msg, func(r rune) bool { return r < '0' || r > '9' }) {
		var n int
		if _, err := fmt.Sscan(f, &n); err == nil && n > 0 {
			nums = append(nums, n)
		}
	}
	if len(nums) != 2 {
		return 0, 0
	}
	if strings.Contains(strings.ToLower(msg), "maximum context") {
		return nums[1], nums[0] // OpenAI's wording names the window first
	}
	return nums[0], nums[1]
}

// formatRejected reports whether err is a server refusing the response_format it was sent (an
// unknown type, a schema it cannot turn into a grammar), as opposed to any other bad request.
func formatRejected(err error) bool {
	var o *ContextOverflowError
	if errors.As(err, &o) {
		return false
	}
	var apiErr *openai.APIError
	if !errors.As(err, &apiErr) {
		return false
	}
	switch apiErr.HTTPStatusCode {
	case http.StatusBadRequest, http.StatusUnprocessableEntity, http.StatusInternalServerError, http.StatusNotImplemented:
	default:
		return false
	}
	msg := strings.ToLower(apiErr.Message)
	for _, w := range []string{"response_format", "json_schema", "json_object", "schema", "grammar"} {
		if strings.Contains(msg, w) {
			return true
		}
	}
	return false
}
