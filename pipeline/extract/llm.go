package extract

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/llm"
	"github.com/stratarag/strata/internal/llmtask"
	"github.com/stratarag/strata/prompts"
)

// Mode selects how the LLM extractor asks for entities and relations.
type Mode string

// Extraction modes.
const (
	// ModeCombined asks for entities and relationships in one pass: one call per chunk.
	ModeCombined Mode = "combined"
	// ModeTwoPass is HiRAG's: a typed entity pass, then a relation pass given the entities.
	ModeTwoPass Mode = "two-pass"
)

// ParseMode reads a mode flag: "combined" or "two-pass" ("twopass", "two_pass" and "hirag"
// also name the latter).
func ParseMode(s string) (Mode, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "combined", "one-pass", "single":
		return ModeCombined, nil
	case "two-pass", "twopass", "two_pass", "hirag":
		return ModeTwoPass, nil
	}
	return "", fmt.Errorf("unknown extraction mode %q (want combined or two-pass)", s)
}

// DefaultLLMMaxTokens caps each extraction answer. A 1200-token chunk rarely needs more than
// about 1500 tokens of records; the cap bounds the cost of a model that rambles.
const DefaultLLMMaxTokens = 2000

// LLMOptions configures the LLM extractor. Zero fields take defaults.
type LLMOptions struct {
	Mode Mode // ModeCombined when empty
	// Gleaning is the number of follow-up rounds asking for missed records (0–1 recommended).
	// A round that finds nothing new ends gleaning early.
	Gleaning    int
	EntityTypes []string // DefaultEntityTypes when empty
	MaxTokens   int      // completion limit per call; DefaultLLMMaxTokens when 0
}

func (o LLMOptions) withDefaults() LLMOptions {
	if o.Mode == "" {
		o.Mode = ModeCombined
	}
	if len(o.EntityTypes) == 0 {
		o.EntityTypes = slices.Clone(DefaultEntityTypes)
	}
	if o.MaxTokens <= 0 {
		o.MaxTokens = DefaultLLMMaxTokens
	}
	o.Gleaning = max(o.Gleaning, 0)
	return o
}

// LLM extracts entities and relations with a chat model, using the prompts of package prompts.
type LLM struct {
	chat    llm.Chatter
	prompts *prompts.Set
	opts    LLMOptions
	model   string
}

// NewLLM returns an LLM extractor calling chat (normally an *llm.Client, which brings retries,
// rate limits, the cache and accounting). An unknown Mode makes Extract fail.
func NewLLM(chat llm.Chatter, opts LLMOptions) *LLM {
	x := &LLM{chat: chat, prompts: prompts.New(), opts: opts.withDefaults(), model: "unknown"}
	if c, ok := chat.(interface{ Config() llm.Config }); ok {
		x.model = c.Config().ChatModel
	}
	return x
}

var _ Extractor = (*LLM)(nil)

// Name implements Extractor: model, mode, gleaning, prompt version and entity types, so that a
// change to any of them is visible.
func (x *LLM) Name() string {
	types := sha256.Sum256([]byte(strings.Join(x.opts.EntityTypes, "\x00")))
	return fmt.Sprintf("llm:%s:%s:glean%d:prompts-%s:types-%s", x.model, x.opts.Mode, x.opts.Gleaning,
		x.prompts.Version(), hex.EncodeToString(types[:])[:6])
}

// Options returns the effective options.
func (x *LLM) Options() LLMOptions { return x.opts }

// Extract implements Extractor. Malformed records are dropped and counted in Result.Dropped, and
// an answer with no readable record is a chunk without entities: unlike the tasks of package
// llmtask, extraction salvages every answer and never returns prompts.ErrUnreadable. Only a
// failed call (after the client's retries) or cancellation is an error. Each answer is judged
// with llmtask.JudgeRecords, so an *llm.Client counts salvaged answers per stage and does not
// cache them: a later run (a fresh store reusing the cache) asks for them again.
func (x *LLM) Extract(ctx context.Context, text string) (Result, error) {
	if strings.TrimSpace(text) == "" {
		return Result{}, ctx.Err()
	}
	in := prompts.ExtractInput{Text: text, EntityTypes: x.opts.EntityTypes}
	var m merger
	switch x.opts.Mode {
	case ModeCombined:
		p, err := x.task(in, true, true, x.prompts.Combined)
		if err != nil {
			return Result{}, err
		}
		if err := x.conversation(ctx, p, llm.StageExtract, prompts.GleanAll, &m); err != nil {
			return Result{}, err
		}
	case ModeTwoPass:
		p, err := x.task(in, true, false, x.prompts.Entities)
		if err != nil {
			return Result{}, err
		}
		var ents merger
		if err := x.conversation(ctx, p, llm.StageExtract, prompts.GleanEntities, &ents); err != nil {
			return Result{}, err
		}
		m.dropped = ents.dropped
		m.addEntities(ents.entities)
		if len(m.entities) > 0 {
			found := m.records()
			p, err := x.task(in, false, true, func(in prompts.ExtractInput) (prompts.Prompt, error) { return x.prompts.Relations(in, found) })
			if err != nil {
				return Result{}, err
			}
			var rels merger
			if err := x.conversation(ctx, p, llm.StageRelations, prompts.GleanRelations, &rels); err != nil {
				return Result{}, err
			}
			m.dropped += rels.dropped
			m.addRelations(rels.relations)
		}
	default:
		return Result{}, fmt.Errorf("LLM extractor: unknown mode %q", x.opts.Mode)
	}
	return m.result(), nil
}

// structuredPrompt is an extraction prompt in its two forms: delimited records, and JSON
// following a schema for servers that enforce one. One parser (prompts.ParseRecords) reads both.
type structuredPrompt struct {
	text, json prompts.Prompt
	schema     []byte
}

// task renders an extraction prompt in both forms.
func (x *LLM) task(in prompts.ExtractInput, entities, relations bool, render func(prompts.ExtractInput) (prompts.Prompt, error)) (structuredPrompt, error) {
	text, err := render(in)
	if err != nil {
		return structuredPrompt{}, err
	}
	in.JSON = true
	js, err := render(in)
	if err != nil {
		return structuredPrompt{}, err
	}
	return structuredPrompt{text: text, json: js, schema: prompts.ExtractionSchema(in.EntityTypes, entities, relations)}, nil
}

func messages(p prompts.Prompt) []llm.Message {
	return []llm.Message{{Role: llm.RoleSystem, Content: p.System}, {Role: llm.RoleUser, Content: p.User}}
}

// conversation runs one extraction prompt and its gleaning rounds, in one chat, into m.
func (x *LLM) conversation(ctx context.Context, p structuredPrompt, stage string, kind prompts.GleanKind, m *merger) error {
	msgs, jsonMsgs := messages(p.text), messages(p.json)
	request := func(stage string) llm.ChatRequest {
		return llm.ChatRequest{Stage: stage, Messages: msgs, MaxTokens: x.opts.MaxTokens, Judge: llmtask.JudgeRecords,
			Structured: &llm.Structured{Name: "extraction", Schema: p.schema, Messages: jsonMsgs}}
	}
	resp, err := x.chat.Chat(ctx, request(stage))
	if err != nil {
		return fmt.Errorf("extract (%s): %w", stage, err)
	}
	m.add(prompts.ParseRecords(resp.Content))
	for round := 0; round < x.opts.Gleaning; round++ {
		follow, err := x.prompts.Glean(kind)
		if err != nil {
			return err
		}
		// Both forms carry the answer as it came: a server that took the schema for the first
		// question takes it for the follow-up too.
		turn := []llm.Message{{Role: llm.RoleAssistant, Content: resp.Content}, {Role: llm.RoleUser, Content: follow}}
		msgs, jsonMsgs = append(msgs, turn...), append(jsonMsgs, turn...)
		resp, err = x.chat.Chat(ctx, request(llm.StageGlean))
		if err != nil {
			return fmt.Errorf("extract (%s, gleaning round %d): %w", stage, round+1, err)
		}
		if m.add(prompts.ParseRecords(resp.Content)) == 0 {
			break // nothing new: another round would find nothing either
		}
	}
	return nil
}

// merger collects records from the answers about one chunk, merging repeats: an entity named
// twice (by id) keeps its first type and all distinct descriptions; a relation (by unordered
// pair) keeps its highest strength.
type merger struct {
	entities  []Entity
	relations []Relation
	entIdx    map[string]int
	relIdx    map[graph.RelationKey]int
	dropped   int
}

// add merges recs and returns how many entities and relations were new.
func (m *merger) add(recs prompts.Records) int {
	m.dropped += recs.Dropped
	ents := make([]Entity, len(recs.Entities))
	for i, e := range recs.Entities {
		ents[i] = Entity{Name: e.Name, Type: e.Type, Description: e.Description}
	}
	rels := make([]Relation, len(recs.Relationships))
	for i, r := range recs.Relationships {
		rels[i] = Relation{Source: r.Source, Target: r.Target, Description: r.Description, Strength: r.Strength}
	}
	return m.addEntities(ents) + m.addRelations(rels)
}

func (m *merger) addEntities(ents []Entity) int {
	if m.entIdx == nil {
		m.entIdx = map[string]int{}
	}
	added := 0
	for _, e := range ents {
		id := graph.NormalizeID(e.Name)
		if id == "" {
			m.dropped++
			continue
		}
		i, ok := m.entIdx[id]
		if !ok {
			m.entIdx[id] = len(m.entities)
			m.entities = append(m.entities, e)
			added++
			continue
		}
		cur := &m.entities[i]
		if cur.Type == "" {
			cur.Type = e.Type
		}
		cur.Description = joinDistinct(cur.Description, e.Description)
	}
	return added
}

func (m *merger) addRelations(rels []Relation) int {
	if m.relIdx == nil {
		m.relIdx = map[graph.RelationKey]int{}
	}
	added := 0
	for _, r := range rels {
		src, tgt := graph.NormalizeID(r.Source), graph.NormalizeID(r.Target)
		if src == "" || tgt == "" || src == tgt {
			m.dropped++
			continue
		}
		k := graph.NewRelationKey(src, tgt)
		i, ok := m.relIdx[k]
		if !ok {
			m.relIdx[k] = len(m.relations)
			m.relations = append(m.relations, r)
			added++
			continue
		}
		cur := &m.relations[i]
		cur.Strength = max(cur.Strength, r.Strength)
		cur.Description = joinDistinct(cur.Description, r.Description)
	}
	return added
}

// records lists the entities for the relation prompt.
func (m *merger) records() []prompts.EntityRecord {
	out := make([]prompts.EntityRecord, len(m.entities))
	for i, e := range m.entities {
		out[i] = prompts.EntityRecord{Name: e.Name, Type: e.Type, Description: e.Description}
	}
	return out
}

func (m *merger) result() Result {
	return Result{Entities: m.entities, Relations: m.relations, Dropped: m.dropped}
}

func joinDistinct(a, b string) string {
	switch {
	case b == "" || strings.Contains(a, b):
		return a
	case a == "":
		return b
	}
	return a + " " + b
}
