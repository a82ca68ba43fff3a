package fakeopenai

import (
	"crypto/sha256"
	"encoding/json"
	"net/http"
	"strings"
	"time"

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
	task, answer, records := s.answer(req.Messages)
	broken := 0
	key := sha256.Sum256(body)
	unreadable := s.opts.UnreadableRate > 0 && s.draw([]byte("unreadable"), key[:]) < s.opts.UnreadableRate
	malformed := !unreadable && s.opts.MalformedRate > 0 && s.draw([]byte("malformed"), key[:]) < s.opts.MalformedRate
	switch {
	case unreadable:
		answer = unreadableAnswer
	case malformed:
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
func (s *Server) answer(msgs []chatMessage) (task, answer string, records int) {
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
	if strings.HasPrefix(strings.TrimSpace(lastUser), "# "+prompts.FollowUpGlean) && lastUser != firstUser {
		passage, _ := prompts.Unfence(firstUser, prompts.PassageLabel)
		g := gleanAnswer(task, passage)
		return "glean", g.text, g.records
	}
	switch task {
	case prompts.TaskCombined, prompts.TaskEntities:
		passage, _ := prompts.Unfence(firstUser, prompts.PassageLabel)
		ents, rels := extractGraph(passage)
		if task == prompts.TaskEntities {
			rels = nil
		}
		return task, prompts.FormatRecords(ents, rels), len(ents) + len(rels)
	case prompts.TaskRelations:
		passage, _ := prompts.Unfence(firstUser, prompts.PassageLabel)
		rels := relationsAmong(passage, listedEntities(firstUser))
		return task, prompts.FormatRecords(nil, rels), len(rels)
	case prompts.TaskSummarize:
		return task, summarizeAnswer(system, firstUser), 0
	case prompts.TaskAnswer:
		return task, answerAnswer(firstUser), 0
	case prompts.TaskReport:
		text, _ := prompts.Unfence(firstUser, prompts.CommunityLabel)
		return task, reportAnswer(text), 0
	case prompts.TaskKeyPoints:
		return task, keyPointsAnswer(firstUser), 0
	case prompts.TaskSummaryRelation:
		return task, summaryRelationAnswer(firstUser), 0
	case prompts.TaskArchSummary:
		text, _ := prompts.Unfence(firstUser, prompts.MembersLabel)
		return task, archSummaryAnswer(text), 0
	case prompts.TaskSummaryEntity:
		text, _ := prompts.Unfence(firstUser, prompts.ClusterLabel)
		ents, rels := summaryEntities(text)
		return task, prompts.FormatRecords(ents, rels), len(ents) + len(rels)
	}
	if task == "" {
		task = "unknown"
	}
	return task, "OK.", 0
}
