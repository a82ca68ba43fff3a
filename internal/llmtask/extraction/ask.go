package extraction

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/stratarag/strata/internal/llm"
	"github.com/stratarag/strata/internal/llmtask"
	"github.com/stratarag/strata/prompts"
)

// Call configures one extraction conversation.
type Call struct {
	Stage     string // the stage of the first request; gleaning rounds are llm.StageGlean
	MaxTokens int    // completion limit per request
	Gleaning  int    // follow-up rounds asking for missed records
}

// structured is an extraction prompt in its two forms: delimited records, and JSON following a
// schema for servers that enforce one. One parser (prompts.ParseRecords) reads both.
type structured struct {
	text, json prompts.Prompt
	schema     json.RawMessage
}

// render renders the prompt of kind in both forms.
func render(kind Kind, in Input, entities []prompts.EntityRecord) (structured, error) {
	text, err := Prompt(kind, in, entities)
	if err != nil {
		return structured{}, err
	}
	in.JSON = true
	js, err := Prompt(kind, in, entities)
	if err != nil {
		return structured{}, err
	}
	wantEnts, wantRels := kind.wants()
	return structured{text: text, json: js, schema: prompts.ExtractionSchema(in.EntityTypes, wantEnts, wantRels, !in.Brief)}, nil
}

// Ask runs the prompt of kind and its gleaning rounds in one chat, handing the records of each
// answer to add, which returns how many of them were new; a round that finds nothing new ends
// gleaning early. entities are those the relation prompt lists. Malformed records are dropped
// and counted by prompts.ParseRecords, and an answer with no readable record is an answer
// without records: unlike the other tasks, extraction salvages every answer and never returns
// prompts.ErrUnreadable. Only a failed call (after the client's retries) or cancellation is an
// error. Each answer is judged with llmtask.JudgeRecords, so an *llm.Client counts salvaged
// answers per stage and does not cache them: a later run asks for them again.
func Ask(ctx context.Context, chat llm.Chatter, kind Kind, in Input, entities []prompts.EntityRecord, call Call, add func(prompts.Records) int) error {
	p, err := render(kind, in, entities)
	if err != nil {
		return err
	}
	msgs, jsonMsgs := llmtask.Messages(p.text), llmtask.Messages(p.json)
	request := func(stage string) llm.ChatRequest {
		return llm.ChatRequest{Stage: stage, Messages: msgs, MaxTokens: call.MaxTokens, Judge: llmtask.JudgeRecords,
			Structured: &llm.Structured{Name: "extraction", Schema: p.schema, Messages: jsonMsgs}}
	}
	resp, err := chat.Chat(ctx, request(call.Stage))
	if err != nil {
		return fmt.Errorf("extract (%s): %w", call.Stage, err)
	}
	add(prompts.ParseRecords(resp.Content))
	for round := 0; round < call.Gleaning; round++ {
		follow, err := Glean(kind)
		if err != nil {
			return err
		}
		// Both forms carry the answer as it came: a server that took the schema for the first
		// question takes it for the follow-up too.
		turn := []llm.Message{{Role: llm.RoleAssistant, Content: resp.Content}, {Role: llm.RoleUser, Content: follow}}
		msgs, jsonMsgs = append(msgs, turn...), append(jsonMsgs, turn...)
		resp, err = chat.Chat(ctx, request(llm.StageGlean))
		if err != nil {
			return fmt.Errorf("extract (%s, gleaning round %d): %w", call.Stage, round+1, err)
		}
		if add(prompts.ParseRecords(resp.Content)) == 0 {
			break // nothing new: another round would find nothing either
		}
	}
	return nil
}
