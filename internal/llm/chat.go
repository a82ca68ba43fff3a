package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"github.com/stratarag/strata/internal/textutil"
)

// Message roles.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
)

// Message is one chat message.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// ChatRequest is one chat completion request.
type ChatRequest struct {
	// Stage labels the call for accounting; when empty the stage of the context is used.
	Stage    string
	Messages []Message
	// MaxTokens caps the completion; 0 leaves it to the server. It is also what the request is
	// charged against the tokens-per-minute limit (1024 when 0).
	MaxTokens int
	// Temperature 0 (the default) is sent as 0, for answers as repeatable as the server allows.
	Temperature float32
	// JSON asks for a JSON object (response_format json_object). Servers that refuse the
	// parameter get the request again without it, and are not sent it again.
	JSON bool
	// Structured, when set, asks for an answer following a JSON schema, in the most constrained
	// way the server accepts (see Format); it implies JSON.
	Structured *Structured
	// OnDelta, when set, receives the answer's text as it arrives (the reasoning blocks
	// included), for showing it while it is written. A cached answer arrives in one piece.
	OnDelta func(string)
	// OnRetry, when set, is called before the pieces of an attempt that follows one which had
	// sent some to OnDelta and then failed: the text so far is not part of the answer. Without
	// it, the retry's text follows the failed attempt's.
	OnRetry func()
	// Judge, when set, tells what the caller's parser makes of an answer. A damaged answer
	// (salvaged in part, or unreadable) is returned and counted per stage (StageUsage.Salvaged,
	// Unreadable, DroppedRecords) and logged through Config.OnWarning, but never cached, so a
	// later run asks again instead of rebuilding the same damage from the cache; a cached entry
	// that Judge finds damaged (one written before answers were judged) counts as a miss.
	Judge func(ChatResponse) Verdict
	// NoStore keeps the answer out of the cache (a cached answer is still used): for a dry
	// run's sample calls, since a dry run writes nothing.
	NoStore bool
}

// Verdict is what a parser made of one answer (ChatRequest.Judge). The zero value is an answer
// read in full.
type Verdict struct {
	// Salvaged: part of the answer was used and part could not be read (malformed records, a
	// cut-off end); Dropped says how many parts were lost, when the parser counts them.
	Salvaged bool
	// Unreadable: nothing in the answer could be used.
	Unreadable bool
	Dropped    int
	// Reason says what was wrong, for the log.
	Reason string
}

// Damaged reports whether the answer could not be read in full.
func (v Verdict) Damaged() bool { return v.Salvaged || v.Unreadable }

func (v Verdict) String() string {
	what := "salvaged in part"
	if v.Unreadable {
		what = "unreadable"
	}
	if v.Reason != "" {
		what += " (" + v.Reason + ")"
	}
	return what
}

// judge applies req.Judge to resp; without a Judge every answer is whole.
func judge(req ChatRequest, resp ChatResponse) Verdict {
	if req.Judge == nil {
		return Verdict{}
	}
	return req.Judge(resp)
}

// ChatResponse is a completion.
type ChatResponse struct {
	// Content is the answer with reasoning blocks (<think>…</think>) removed.
	Content string
	// FinishReason is the server's; "length" means the answer was cut at the token cap.
	FinishReason string
	// Tokens as billed: from the API's usage when it reports it, else counted with cl100k.
	PromptTokens     int
	CompletionTokens int
	// Cached reports that the response came from the cache and cost nothing.
	Cached bool
}

// Truncated reports whether the answer was cut off by the token limit.
func (r ChatResponse) Truncated() bool { return r.FinishReason == string(openai.FinishReasonLength) }

// Chatter is what prompt users need from a client. *Client implements it; tests may fake it.
type Chatter interface {
	Chat(ctx context.Context, req ChatRequest) (ChatResponse, error)
}

// defaultCharge is what a request without MaxTokens is charged for its completion.
const defaultCharge = 1024

// Chat sends a chat completion request, or answers it from the cache.
func (c *Client) Chat(ctx context.Context, req ChatRequest) (ChatResponse, error) {
	stage := stageOf(req.Stage, StageOther)
	if len(req.Messages) == 0 || (req.Structured != nil && len(req.Structured.Messages) == 0) {
		return ChatResponse{}, errors.New("chat request without messages")
	}
	for {
		f := formatFor(req, Format(c.format.Load()))
		resp, err := c.chatAs(ctx, stage, req, f)
		if err == nil || !formatRejected(err) || f == FormatText {
			return resp, err
		}
		next := f + 1
		if req.Structured == nil {
			next = FormatText // a JSON-mode request without a schema refused json_object
		}
		c.lowerFormat(next)
		c.warn(fmt.Errorf("server at %s refused structured output as %s; asking as %s from now on: %w", c.cfg.BaseURL, f, next, err))
	}
}

// lowerFormat makes to the most constrained format the client sends, unless a lower one is
// already in force.
func (c *Client) lowerFormat(to Format) {
	for {
		cur := c.format.Load()
		if Format(cur) >= to || c.format.CompareAndSwap(cur, int32(to)) {
			return
		}
	}
}

// minAnswerTokens is the least room for an answer worth asking for when the prompt fills most of
// the context window.
const minAnswerTokens = 128

// chatAs answers req sent in format f: from the cache, or from the server with the answer's
// token cap fitted to the context window when it is known.
func (c *Client) chatAs(ctx context.Context, stage string, req ChatRequest, f Format) (ChatResponse, error) {
	msgs, promptEst, maxTokens, err := c.fitted(req, f)
	if err != nil {
		return ChatResponse{}, fmt.Errorf("chat completion (%s, model %s): %w", stage, c.cfg.ChatModel, err)
	}
	for refit := true; ; refit = false {
		resp, err := c.chatOnce(ctx, stage, req, f, msgs, promptEst, maxTokens)
		var o *ContextOverflowError
		if err == nil || !errors.As(err, &o) || !refit || o.PromptTokens == 0 || o.ContextWindow == 0 {
			return resp, err
		}
		// The server counts with its own tokenizer, which may see more tokens than cl100k: it
		// said how many, so the answer's cap is fitted to its numbers and the request sent once more.
		c.window.CompareAndSwap(0, int64(o.ContextWindow))
		room := o.ContextWindow - o.PromptTokens - 8
		if room < minAnswerTokens || (maxTokens > 0 && room >= maxTokens) {
			return resp, err
		}
		maxTokens = room
	}
}

// fitted returns the messages req is sent with in format f, their estimated tokens, and the
// answer's cap fitted to the context window when it is known.
func (c *Client) fitted(req ChatRequest, f Format) (msgs []Message, promptEst, maxTokens int, err error) {
	msgs = messagesFor(req, f)
	promptEst, maxTokens = c.CountMessages(msgs), req.MaxTokens
	if w := c.ContextWindow(); w > 0 {
		maxTokens, err = fitAnswer(promptEst, maxTokens, w)
	}
	return msgs, promptEst, maxTokens, err
}

// fitAnswer caps an answer's tokens so that prompt and answer fit window. The prompt estimate
// is in cl100k, and local models' tokenizers often count a tenth or a fifth more, hence the
// margin of a fifth (PromptRoom is its inverse, for callers that size a prompt to the window). A
// prompt that leaves less than minAnswerTokens is an error naming the numbers.
func fitAnswer(promptEst, maxTokens, window int) (int, error) {
	prompt := promptEst + promptEst/5 + 16
	room := window - prompt
	if room < minAnswerTokens {
		return 0, &ContextOverflowError{PromptTokens: promptEst, ContextWindow: window,
			Err: &openai.APIError{Message: fmt.Sprintf("an estimated %d prompt tokens leave no room for an answer in a window of %d tokens", promptEst, window)}}
	}
	if maxTokens <= 0 || maxTokens > room {
		return room, nil
	}
	return maxTokens, nil
}

// chatOnce sends msgs in format f with the given cap (retrying what is transient) or answers
// from the cache.
func (c *Client) chatOnce(ctx context.Context, stage string, req ChatRequest, f Format, msgs []Message, promptEst, maxTokens int) (ChatResponse, error) {
	key := c.chatKey(req, f, msgs, maxTokens)
	if resp, ok := c.fromCache(ctx, stage, req, key); ok {
		return resp, nil
	}
	if err := ctx.Err(); err != nil {
		return ChatResponse{}, err
	}
	charge := promptEst + maxTokens
	if maxTokens <= 0 {
		charge = promptEst + defaultCharge
	}
	body := c.wireRequest(msgs, maxTokens, req.Temperature, responseFormat(req, f))
	if c.batch != nil && !req.NoStore {
		// A request that must not be stored is a dry run's sample: it is not worth a batch
		// job's wait.
		return c.chatBatched(ctx, stage, req, key, body, promptEst, charge)
	}
	var out wireAnswer
	var promptTokens, completionTokens int
	onDelta, sent := req.OnDelta, false
	if onDelta != nil {
		onDelta = func(piece string) {
			sent = true
			req.OnDelta(piece)
		}
	}
	err := c.call(ctx, c.lim, c.budget, stage, charge, promptEst, func(actx context.Context) error {
		if sent && req.OnRetry != nil {
			req.OnRetry()
		}
		sent = false
		a, err := c.postChat(actx, body, onDelta)
		if err != nil {
			if a.content != "" {
				c.record(ctx, stage, StageUsage{FailedTokens: c.tok.Count(a.content)})
			}
			if formatRejected(err) {
				return permanent{err}
			}
			return err
		}
		out = a
		// Billed as the server says, else as cl100k counts; spent before the attempt ends,
		// so that a budget refusal waiting for it includes it.
		promptTokens, completionTokens = c.billed(a, promptEst)
		c.budget.spend(promptTokens + completionTokens)
		return nil
	})
	if err != nil {
		return ChatResponse{}, fmt.Errorf("chat completion (%s, model %s): %w", stage, c.cfg.ChatModel, err)
	}
	return c.answered(ctx, stage, req, key, out, promptTokens, completionTokens), nil
}

// fromCache answers req from the cache under key, counting the hit, unless there is no entry or
// req's judge finds it damaged.
func (c *Client) fromCache(ctx context.Context, stage string, req ChatRequest, key string) (ChatResponse, bool) {
	resp, ok := c.cachedChat(key)
	if !ok {
		return ChatResponse{}, false
	}
	if v := judge(req, resp); v.Damaged() {
		// Written before answers were judged: the damage it would rebuild is worth a new call.
		return ChatResponse{}, false
	}
	c.record(ctx, stage, StageUsage{CacheHits: 1, SavedTokens: resp.PromptTokens + resp.CompletionTokens})
	if req.OnDelta != nil {
		req.OnDelta(resp.Content)
	}
	return resp, true
}

// billed returns the tokens an answer is billed: as the server says, else as cl100k counts.
func (c *Client) billed(a wireAnswer, promptEst int) (prompt, completion int) {
	prompt, completion = a.usage.PromptTokens, a.usage.CompletionTokens
	if prompt <= 0 {
		prompt = promptEst
	}
	if completion <= 0 {
		completion = c.tok.Count(a.content)
	}
	return prompt, completion
}

// answered turns the server's answer to req into the response: counted for the stage, judged,
// and cached unless damaged.
func (c *Client) answered(ctx context.Context, stage string, req ChatRequest, key string, out wireAnswer, promptTokens, completionTokens int) ChatResponse {
	resp := responseOf(out, promptTokens, completionTokens)
	u := StageUsage{LLMCalls: 1, PromptTokens: resp.PromptTokens, CompletionTokens: resp.CompletionTokens}
	if resp.Truncated() {
		u.Truncated = 1
	}
	v := judge(req, resp)
	switch {
	case v.Unreadable:
		u.Unreadable, u.DroppedRecords = 1, v.Dropped
	case v.Salvaged:
		u.Salvaged, u.DroppedRecords = 1, v.Dropped
	}
	c.record(ctx, stage, u)
	if v.Damaged() {
		// Not cached: at temperature 0 a real model often answers the same again, but a later
		// run (or a fixed parser) may do better, and a cached damaged answer would rebuild the
		// same damaged graph in every fresh store without a word.
		c.warn(fmt.Errorf("%s answer of model %s %s; kept what could be read, not cached (a later run asks again)", stage, c.cfg.ChatModel, v))
		return resp
	}
	if !req.NoStore {
		c.storeChat(key, resp)
	}
	return resp
}

// responseOf is the response an answer makes, without its reasoning blocks.
func responseOf(out wireAnswer, promptTokens, completionTokens int) ChatResponse {
	return ChatResponse{
		Content:          strings.TrimSpace(textutil.StripThinking(out.content)),
		FinishReason:     out.finishReason,
		PromptTokens:     promptTokens,
		CompletionTokens: completionTokens,
	}
}

// isReasoningModel reports whether model belongs to OpenAI's reasoning families, which take
// max_completion_tokens and a fixed temperature.
func isReasoningModel(model string) bool {
	for _, p := range []string{"o1", "o3", "o4", "gpt-5"} {
		if strings.HasPrefix(model, p) {
			return true
		}
	}
	return false
}

func (c *Client) wireRequest(msgs []Message, maxTokens int, temperature float32, format any) chatWire {
	r := chatWire{Model: c.cfg.ChatModel, Messages: msgs, ResponseFormat: format}
	if isReasoningModel(c.cfg.ChatModel) {
		r.MaxCompletionTokens = maxTokens
	} else {
		r.MaxTokens = maxTokens
		r.Temperature = &temperature // sent even when 0: servers default to 0.7–1.0
	}
	return r
}

// CountMessages estimates the prompt tokens of messages in cl100k: content plus the few tokens
// of framing the chat format adds per message and per reply.
func (c *Client) CountMessages(msgs []Message) int {
	n := tokensPerReply
	for _, m := range msgs {
		if m.Role == RoleSystem {
			n += tokensPerMessage + c.sysCounter.Count(m.Content)
		} else {
			n += tokensPerMessage + c.tok.Count(m.Content)
		}
	}
	return n
}

// Counter counts tokens; *tokenizer.Tokenizer implements it.
type Counter interface {
	Count(s string) int
}

// Chat framing overhead in tokens, as documented for OpenAI chat models.
const (
	tokensPerMessage = 4
	tokensPerReply   = 3
)

// CountMessages estimates the prompt tokens of msgs with tok.
func CountMessages(tok Counter, msgs []Message) int {
	n := tokensPerReply
	for _, m := range msgs {
		n += tokensPerMessage + tok.Count(m.Content)
	}
	return n
}

// cachedChatEntry is the on-disk form of a cached completion.
type cachedChatEntry struct {
	Model            string `json:"model"`
	Content          string `json:"content"`
	FinishReason     string `json:"finish_reason"`
	PromptTokens     int    `json:"prompt_tokens"`
	CompletionTokens int    `json:"completion_tokens"`
}

// chatKey addresses a request in the cache: model, messages and every parameter that changes
// the answer. The base URL is left out on purpose: the same model behind another endpoint may
// reuse answers. Requests without a schema keep the key they always had.
func (c *Client) chatKey(req ChatRequest, f Format, msgs []Message, maxTokens int) string {
	m, _ := json.Marshal(msgs)
	temp := strconv.FormatFloat(float64(req.Temperature), 'g', -1, 32)
	if req.Structured == nil {
		return Key("chat-v1", c.cfg.ChatModel, string(m), strconv.Itoa(maxTokens), temp, strconv.FormatBool(req.JSON))
	}
	return Key("chat-v2", c.cfg.ChatModel, string(m), strconv.Itoa(maxTokens), temp, cacheForm(f), string(req.Structured.Schema))
}

func (c *Client) cachedChat(key string) (ChatResponse, bool) {
	if c.cache == nil {
		return ChatResponse{}, false
	}
	b, ok, err := c.cache.Get("chat", key)
	if err != nil {
		c.warn(err)
	}
	if !ok {
		return ChatResponse{}, false
	}
	var e cachedChatEntry
	if err := json.Unmarshal(b, &e); err != nil {
		c.warn(fmt.Errorf("ignore corrupt LLM cache entry chat/%s: %w", key, err))
		return ChatResponse{}, false
	}
	return ChatResponse{
		Content: e.Content, FinishReason: e.FinishReason,
		PromptTokens: e.PromptTokens, CompletionTokens: e.CompletionTokens, Cached: true,
	}, true
}

func (c *Client) storeChat(key string, r ChatResponse) {
	if c.cache == nil {
		return
	}
	b, err := json.Marshal(cachedChatEntry{
		Model: c.cfg.ChatModel, Content: r.Content, FinishReason: r.FinishReason,
		PromptTokens: r.PromptTokens, CompletionTokens: r.CompletionTokens,
	})
	if err == nil {
		err = c.cache.Put("chat", key, b)
	}
	c.warn(err)
}

// Lookup returns the cached response to req without calling the API or counting anything. The
// dry-run estimator uses it to tell work already done from work still to pay for. An entry
// req.Judge finds damaged is not found, as Chat would ask again.
func (c *Client) Lookup(req ChatRequest) (ChatResponse, bool) {
	f := formatFor(req, Format(c.format.Load()))
	msgs, _, maxTokens, err := c.fitted(req, f)
	if err != nil {
		return ChatResponse{}, false // Chat would fail before sending: nothing is cached under it
	}
	resp, ok := c.cachedChat(c.chatKey(req, f, msgs, maxTokens))
	if !ok || judge(req, resp).Damaged() {
		return ChatResponse{}, false
	}
	return resp, true
}
