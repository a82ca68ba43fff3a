package fakeopenai

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/stratarag/strata/prompts"
)

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type chatRequest struct {
	Model               string        `json:"model"`
	Messages            []chatMessage `json:"messages"`
	MaxTokens           int           `json:"max_tokens"`
	MaxCompletionTokens int           `json:"max_completion_tokens"`
	Stream              bool          `json:"stream"`
	StreamOptions       struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	ResponseFormat *struct {
		Type       string          `json:"type"`
		Schema     json.RawMessage `json:"schema"`
		JSONSchema *struct {
			Schema json.RawMessage `json:"schema"`
		} `json:"json_schema"`
	} `json:"response_format"`
}

// schema returns the JSON schema the request asks the answer to follow, in either of the two
// shapes servers take, or nil.
func (r chatRequest) schema() json.RawMessage {
	switch {
	case r.ResponseFormat == nil:
		return nil
	case r.ResponseFormat.Type == "json_schema" && r.ResponseFormat.JSONSchema != nil:
		return r.ResponseFormat.JSONSchema.Schema
	case r.ResponseFormat.Type == "json_object":
		return r.ResponseFormat.Schema
	}
	return nil
}

// Chat framing overhead per message and per reply, as the client estimates it.
const (
	tokensPerMessage = 4
	tokensPerReply   = 3
)

func (s *Server) chat(w http.ResponseWriter, body []byte) {
	var req chatRequest
	if err := json.Unmarshal(body, &req); err != nil || len(req.Messages) == 0 {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "invalid chat request")
		return
	}
	if f := req.ResponseFormat; f != nil && s.opts.RefuseFormats[formatName(req)] {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "unsupported response_format type "+f.Type+" (fake)")
		return
	}
	task, answer, records := s.answer(req.Messages, req.schema() != nil)
	broken := 0
	key := sha256.Sum256(body)
	unreadable := s.opts.UnreadableRate > 0 && s.draw([]byte("unreadable"), key[:]) < s.opts.UnreadableRate
	malformed := !unreadable && s.opts.MalformedRate > 0 && s.draw([]byte("malformed"), key[:]) < s.opts.MalformedRate
	switch {
	case unreadable:
		answer = unreadableAnswer
	case malformed:
		if req.schema() != nil {
			// The mangling imitates a model that ignores the format asked for, as one does when
			// the server does not enforce the schema.
			_, answer, records = s.answer(req.Messages, false)
		}
		answer, broken = mangle(answer, records)
	}
	limit := req.MaxTokens
	if req.MaxCompletionTokens > 0 {
		limit = req.MaxCompletionTokens
	}
	finish := "stop"
	if limit > 0 {
		if cut, ok := s.truncate(answer, limit); ok {
			answer, finish = cut, "length"
		}
	}
	if unreadable {
		finish = "length"
	}
	prompt := tokensPerReply
	for _, m := range req.Messages {
		prompt += tokensPerMessage + s.tok.Count(m.Content)
	}
	completion := s.tok.Count(answer)
	s.count(func(c *Counts) {
		c.Chat++
		c.ByTask[task]++
		c.PromptTokens += prompt
		c.CompletionTokens += completion
		if malformed {
			c.Malformed++
			c.BrokenRecords += broken
		}
		if unreadable {
			c.Unreadable++
		}
	})
	if s.opts.Log != nil {
		s.logChat(task, prompt, completion, finish, req.Messages)
	}
	if req.Stream {
		s.stream(w, req, answer, finish, usage{prompt, completion, prompt + completion})
		return
	}
	writeJSON(w, map[string]any{
		"id":      "chatcmpl-fake",
		"object":  "chat.completion",
		"created": time.Now().Unix(),
		"model":   req.Model,
		"choices": []map[string]any{{
			"index":         0,
			"message":       map[string]any{"role": "assistant", "content": answer},
			"finish_reason": finish,
		}},
		"usage": usage{prompt, completion, prompt + completion},
	})
}

// logChat writes one line of Options.Log.
func (s *Server) logChat(task string, prompt, completion int, finish string, msgs []chatMessage) {
	user := ""
	for _, m := range msgs {
		if m.Role == "user" {
			user = m.Content
			break
		}
	}
	line, _ := json.Marshal(map[string]any{"task": task, "prompt_tokens": prompt, "completion_tokens": completion,
		"finish": finish, "user": user})
	s.mu.Lock()
	defer s.mu.Unlock()
	s.opts.Log.Write(append(line, '\n'))
}

// unreadableAnswer is what a reasoning model returns when max_tokens runs out before it has
// finished thinking.
const unreadableAnswer = "<think>Let me work through the text first. The first thing to settle is"

// truncate cuts answer to limit tokens, as a model hitting max_tokens does.
func (s *Server) truncate(answer string, limit int) (string, bool) {
	ends, err := s.tok.Ends(answer)
	if err != nil || len(ends) <= limit {
		return answer, false
	}
	return answer[:ends[limit-1]], true
}

// answer dispatches on the prompt's task. It returns the task, the answer and, for tuple
// answers, the number of records in it.
func (s *Server) answer(msgs []chatMessage, asJSON bool) (task, answer string, records int) {
	format := prompts.FormatRecords
	if asJSON {
		format = recordsJSON
	}
	var system, firstUser, lastUser string
	for _, m := range msgs {
		switch m.Role {
		case "system", "developer":
			if system == "" {
				system = m.Content
			}
		case "user":
			if firstUser == "" {
				firstUser = m.Content
			}
			lastUser = m.Content
		}
	}
	task = prompts.TaskOf(system)
	switch {
	case asksLines(system):
		format = prompts.FormatLines
	case asksBrief(system):
		plain := format
		format = func(ents []prompts.EntityRecord, rels []prompts.RelationshipRecord) string {
			return plain(undescribed(ents, rels))
		}
	}
	if strings.HasPrefix(strings.TrimSpace(lastUser), "# "+extractFollowUp) && lastUser != firstUser {
		passage, _ := prompts.Unfence(firstUser, extractLabel)
		g := gleanAnswer(task, passage, format)
		return "glean", g.text, g.records
	}
	switch task {
	case extractCombinedTask, extractEntitiesTask:
		passage, _ := prompts.Unfence(firstUser, extractLabel)
		ents, rels := extractGraph(passage)
		if task == extractEntitiesTask {
			rels = nil
		}
		return task, format(ents, rels), len(ents) + len(rels)
	case extractRelationsTask:
		passage, _ := prompts.Unfence(firstUser, extractLabel)
		rels := relationsAmong(passage, listedEntities(firstUser))
		return task, format(nil, rels), len(rels)
	case summarizeTask:
		return task, summarizeAnswer(system, firstUser), 0
	case answerTask:
		return task, answerAnswer(firstUser), 0
	case reportTask:
		text, _ := prompts.Unfence(firstUser, reportLabel)
		return task, reportAnswer(text), 0
	case keyPointsTask:
		return task, keyPointsAnswer(firstUser), 0
	case summaryRelationTask:
		return task, summaryRelationAnswer(firstUser), 0
	case archSummaryTask:
		text, _ := prompts.Unfence(firstUser, archSummaryLabel)
		return task, archSummaryAnswer(text, asJSON), 0
	case judgeTask:
		return task, pairJudgeAnswer(firstUser), 0
	case summaryEntitiesTask:
		text, _ := prompts.Unfence(firstUser, summaryEntitiesLabel)
		ents, rels := summaryEntities(text)
		if !asksRelations(system) {
			rels = nil // a model writes the records the format asks for
		}
		return task, format(ents, rels), len(ents) + len(rels)
	}
	if task == "" {
		task = "unknown"
	}
	return task, "OK.", 0
}

// asksLines reports whether a system prompt asks for brief records in the line format
// (prompts.FormatLines).
func asksLines(system string) bool {
	return strings.Contains(system, "\nNAME | TYPE\n") || strings.Contains(system, "\nSOURCE NAME | TARGET NAME | STRENGTH\n")
}

// asksBrief reports whether a system prompt asks for JSON records without descriptions.
func asksBrief(system string) bool {
	return strings.Contains(system, `objects with "name" and "type";`) || strings.Contains(system, `(entity names) and "strength"`)
}

// undescribed returns copies of the records without their descriptions.
func undescribed(ents []prompts.EntityRecord, rels []prompts.RelationshipRecord) ([]prompts.EntityRecord, []prompts.RelationshipRecord) {
	e, r := slices.Clone(ents), slices.Clone(rels)
	for i := range e {
		e[i].Description = ""
	}
	for i := range r {
		r[i].Description = ""
	}
	return e, r
}

// asksRelations reports whether a system prompt's format asks for relationship records, as
// tuples or as a JSON list.
func asksRelations(system string) bool {
	return strings.Contains(system, `("relationship"`) || strings.Contains(system, `"relationships"`)
}

// formatName names the structured-output form of req as Options.RefuseFormats does.
func formatName(req chatRequest) string {
	switch {
	case req.ResponseFormat == nil:
		return ""
	case req.ResponseFormat.Type == "json_object" && len(req.ResponseFormat.Schema) > 0:
		return "json_object+schema"
	}
	return req.ResponseFormat.Type
}

// stream writes the answer as server-sent events, a few words per event, as OpenAI-compatible
// servers do with "stream": true; usage comes in a last event when the request asked for it.
func (s *Server) stream(w http.ResponseWriter, req chatRequest, answer, finish string, u usage) {
	w.Header().Set("Content-Type", "text/event-stream")
	event := func(v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "data: %s\n\n", b)
	}
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{"id": "chatcmpl-fake", "object": "chat.completion.chunk", "model": req.Model,
			"choices": []map[string]any{{"index": 0, "delta": delta, "finish_reason": finish}}}
	}
	event(chunk(map[string]any{"role": "assistant", "content": ""}, nil))
	for len(answer) > 0 {
		n := min(len(answer), 24)
		for n < len(answer) && !utf8.RuneStart(answer[n]) {
			n++
		}
		event(chunk(map[string]any{"content": answer[:n]}, nil))
		answer = answer[n:]
	}
	event(chunk(map[string]any{}, finish))
	if req.StreamOptions.IncludeUsage {
		event(map[string]any{"id": "chatcmpl-fake", "object": "chat.completion.chunk", "choices": []any{}, "usage": u})
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// recordsJSON writes records as the JSON object the extraction schema asks for.
func recordsJSON(entities []prompts.EntityRecord, relations []prompts.RelationshipRecord) string {
	type entity struct {
		Name        string `json:"name"`
		Type        string `json:"type"`
		Description string `json:"description,omitempty"`
	}
	type relationship struct {
		Source      string  `json:"source"`
		Target      string  `json:"target"`
		Description string  `json:"description,omitempty"`
		Strength    float64 `json:"strength"`
	}
	out := struct {
		Entities      []entity       `json:"entities"`
		Relationships []relationship `json:"relationships"`
	}{Entities: []entity{}, Relationships: []relationship{}}
	for _, e := range entities {
		out.Entities = append(out.Entities, entity{e.Name, e.Type, e.Description})
	}
	for _, r := range relations {
		out.Relationships = append(out.Relationships, relationship{r.Source, r.Target, r.Description, r.Strength})
	}
	b, _ := json.Marshal(out)
	return string(b)
}
