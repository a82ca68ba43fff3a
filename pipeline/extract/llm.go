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
	"github.com/stratarag/strata/internal/llmtask/extraction"
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
	// ModeEntities asks for the entities only: one call per chunk, whose relations join the
	// entities named in one sentence (passageRelations).
	ModeEntities Mode = "entities"
)

// ParseMode reads a mode flag: "combined" or "two-pass" ("twopass", "two_pass" and "hirag"
// also name the latter).
func ParseMode(s string) (Mode, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "combined", "one-pass", "single":
		return ModeCombined, nil
	case "two-pass", "twopass", "two_pass", "hirag":
		return ModeTwoPass, nil
	case "entities":
		return ModeEntities, nil
	}
	return "", fmt.Errorf("unknown extraction mode %q (want combined, two-pass or entities)", s)
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
	// ModelDescriptions has the model write a description of every entity and relation. Without
	// it the prompt asks for names, types and strengths only, and each record is described by the
	// sentences of the chunk that name it: a model's description restates those sentences, and
	// writing it is most of an extraction answer's tokens.
	ModelDescriptions bool
	// EstimateSamples is how many chunks Estimate extracts for real to measure the model's
	// answers (DefaultEstimateSamples when 0, none when negative).
	EstimateSamples int
}

// DefaultEstimateSamples is the sample of a dry run: answers differ by a factor of three between
// models (a record per name, or one per sentence), which no fixed ratio predicts, while six
// chunks spread over the corpus put the mean answer within about 15 % of the whole run's.
const DefaultEstimateSamples = 6

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
	if o.EstimateSamples == 0 {
		o.EstimateSamples = DefaultEstimateSamples
	}
	o.Gleaning = max(o.Gleaning, 0)
	return o
}

// LLM extracts entities and relations with a chat model (the task of
// internal/llmtask/extraction).
type LLM struct {
	chat  llm.Chatter
	opts  LLMOptions
	model string
}

// NewLLM returns an LLM extractor calling chat (normally an *llm.Client, which brings retries,
// rate limits, the cache and accounting). An unknown Mode makes Extract fail.
func NewLLM(chat llm.Chatter, opts LLMOptions) *LLM {
	x := &LLM{chat: chat, opts: opts.withDefaults(), model: "unknown"}
	if c, ok := chat.(interface{ Config() llm.Config }); ok {
		x.model = c.Config().ChatModel
	}
	return x
}

var _ Packer = (*LLM)(nil)

// Name implements Extractor: model, mode, gleaning, who describes the records, prompt version
// and entity types, so that a change to any of them is visible.
func (x *LLM) Name() string {
	types := sha256.Sum256([]byte(strings.Join(x.opts.EntityTypes, "\x00")))
	described := "passage"
	if x.opts.ModelDescriptions {
		described = "model"
	}
	return fmt.Sprintf("llm:%s:%s:glean%d:desc-%s:prompts-%s:types-%s", x.model, x.opts.Mode, x.opts.Gleaning,
		described, extraction.Version(), hex.EncodeToString(types[:])[:6])
}

// Options returns the effective options.
func (x *LLM) Options() LLMOptions { return x.opts }

// Extract implements Extractor with the task of internal/llmtask/extraction. Malformed records
// are dropped and counted in Result.Dropped, and an answer with no readable record is a chunk
// without entities: unlike the other model tasks, extraction salvages every answer and never
// returns prompts.ErrUnreadable. Only a failed call (after the client's retries) or
// cancellation is an error. Each answer is judged with llmtask.JudgeRecords, so an
// *llm.Client counts salvaged answers per stage and does not cache them: a later run (a fresh
// store reusing the cache) asks for them again.
func (x *LLM) Extract(ctx context.Context, text string) (Result, error) {
	if strings.TrimSpace(text) == "" {
		return Result{}, ctx.Err()
	}
	res, err := x.records(ctx, text)
	if err != nil {
		return Result{}, err
	}
	describeFromPassage(text, &res)
	return res, nil
}

// records asks the model about text and merges the records of its answers, undescribed unless
// the model describes them.
func (x *LLM) records(ctx context.Context, text string) (Result, error) {
	in := x.input(text)
	call := func(stage string) extraction.Call {
		return extraction.Call{Stage: stage, MaxTokens: x.opts.MaxTokens, Gleaning: x.opts.Gleaning}
	}
	var m merger
	switch x.opts.Mode {
	case ModeCombined:
		if err := extraction.Ask(ctx, x.chat, extraction.KindCombined, in, nil, call(llm.StageExtract), m.add); err != nil {
			return Result{}, err
		}
	case ModeEntities:
		if err := extraction.Ask(ctx, x.chat, extraction.KindEntities, in, nil, call(llm.StageExtract), m.add); err != nil {
			return Result{}, err
		}
		m.addRelations(passageRelations(text, m.entities))
	case ModeTwoPass:
		var ents merger
		if err := extraction.Ask(ctx, x.chat, extraction.KindEntities, in, nil, call(llm.StageExtract), ents.add); err != nil {
			return Result{}, err
		}
		m.dropped = ents.dropped
		m.addEntities(ents.entities)
		if len(m.entities) > 0 {
			var rels merger
			if err := extraction.Ask(ctx, x.chat, extraction.KindRelations, in, m.records(), call(llm.StageRelations), rels.add); err != nil {
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

// input is the data of the extraction prompts for text.
func (x *LLM) input(text string) extraction.Input {
	return extraction.Input{Text: text, EntityTypes: x.opts.EntityTypes, Brief: !x.opts.ModelDescriptions}
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
