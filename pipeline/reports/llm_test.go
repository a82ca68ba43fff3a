package reports

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/rs/zerolog"

	"github.com/stratarag/strata/internal/embedded"
	"github.com/stratarag/strata/internal/embedding"
	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/llm"
	"github.com/stratarag/strata/internal/tokenizer"
)

// scriptedChat answers report prompts with a fixed text, or fails, and records the prompts.
type scriptedChat struct {
	mu      sync.Mutex
	answer  string
	err     error
	prompts []string
}

func (s *scriptedChat) Chat(_ context.Context, req llm.ChatRequest) (llm.ChatResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.prompts = append(s.prompts, req.Messages[len(req.Messages)-1].Content)
	if s.err != nil {
		return llm.ChatResponse{}, s.err
	}
	return llm.ChatResponse{Content: s.answer}, nil
}

func twoClusterStore(t *testing.T) (*embedded.Store, []graph.Community) {
	t.Helper()
	ctx := context.Background()
	store, err := embedded.Open(ctx, t.TempDir(), embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	var b graph.Batch
	for _, n := range []string{"Ilsa Marrow", "Saltmere Guild", "Port Avel", "Teodor Vance", "Lone Keeper"} {
		b.Entities = append(b.Entities, graph.Entity{ID: graph.NormalizeID(n), Name: n, Type: "other", Description: n + " appears in the archive.", ComponentID: -1})
	}
	b.Relations = []graph.Relation{
		{Source: "ILSA MARROW", Target: "SALTMERE GUILD", Weight: 3, Description: "Ilsa Marrow founded the guild."},
		{Source: "PORT AVEL", Target: "TEODOR VANCE", Weight: 2, Description: "Teodor Vance spoke for Port Avel."},
	}
	if err := store.Apply(ctx, b); err != nil {
		t.Fatal(err)
	}
	communities, err := store.ComputeCommunities(ctx, graph.DefaultLeidenParams())
	if err != nil {
		t.Fatal(err)
	}
	return store, communities
}

func newLLMReporter(t *testing.T, chat llm.Chatter) *LLM {
	tok, err := tokenizer.New()
	if err != nil {
		t.Fatal(err)
	}
	// The fixture's communities are a pair of entities each: sent to the model whatever their size.
	return &LLM{Chat: chat, Embedder: embedding.NewOffline(16), Tokenizer: tok, Log: zerolog.Nop(), MinInputTokens: -1}
}

// TestReportPlan: what a community's report costs, and what a parent's prompt holds.
func TestReportPlan(t *testing.T) {
	x := newLLMReporter(t, nil)
	x.MinInputTokens = 0 // the default threshold
	long := strings.Repeat("The guild kept the harbour charts and taxed every ship that used them. ", 10)
	ent := func(n, desc string) graph.Entity {
		return graph.Entity{ID: graph.NormalizeID(n), Name: n, Type: "person", Description: desc}
	}
	pair := []graph.Entity{ent("Ilsa Marrow", "A founder."), ent("Saltmere Guild", "A guild.")}
	rel := graph.Relation{Source: "ILSA MARROW", Target: "SALTMERE GUILD", Weight: 3, Description: "Ilsa Marrow founded the guild."}
	big := []graph.Entity{ent("Ilsa Marrow", long), ent("Saltmere Guild", long), ent("Corvin Hale", long)}
	for i := range 12 {
		big = append(big, ent(fmt.Sprintf("Harbour Warden %d", i+1), long))
	}
	children := []graph.Community{{ID: "1-1", Size: 2, Title: "Founders", Summary: "Who founded the guild."},
		{ID: "1-2", Size: 1, Title: "Surveyors", Summary: "Who surveyed the harbour."}}
	tests := []struct {
		name    string
		m       graph.Members
		written map[string]Report
		want    reportPlan
		holds   []string // in the prompt text of a model plan
		lacks   []string
	}{
		{"no relation", graph.Members{Entities: big}, map[string]Report{}, planExtractive, nil, nil},
		{"less text than a report", graph.Members{Entities: pair, Relations: []graph.Relation{rel}, RelationCount: 1}, map[string]Report{}, planExtractive, nil, nil},
		{"enough text", graph.Members{Entities: big, Relations: []graph.Relation{rel}, RelationCount: 1}, map[string]Report{}, planModel,
			[]string{"Entities (name", "Corvin Hale (person)", "Ilsa Marrow founded the guild."}, []string{"sub-communities"}},
		{"repeats its only child", graph.Members{Entities: pair, Relations: []graph.Relation{rel}, RelationCount: 1, Children: []graph.Community{{ID: "1-1", Size: 2}}},
			map[string]Report{"1-1": {Title: "Founders"}}, planReuse, nil, nil},
		{"parent of reported children", graph.Members{Entities: big, Relations: []graph.Relation{rel}, RelationCount: 1, Children: children},
			map[string]Report{"1-1": {Title: "Guild founders", Summary: "Ilsa Marrow's guild. " + strings.Repeat(long, 8)}}, planModel,
			// this run's report of 1-1, the stored one of 1-2, the heaviest relation; no member listing
			[]string{"Reports of sub-communities", "- Guild founders: Ilsa Marrow's guild.", "- Surveyors: Who surveyed the harbour.", "Ilsa Marrow founded the guild."},
			[]string{"Entities (name"}},
		{"parent whose children say little", graph.Members{Entities: big, Relations: []graph.Relation{rel}, RelationCount: 1, Children: children},
			map[string]Report{"1-1": {Title: "Guild founders", Summary: "Ilsa Marrow's guild."}}, planExtractive, nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, text := x.plan(tc.m, tc.written)
			if got != tc.want {
				t.Fatalf("plan %d, want %d", got, tc.want)
			}
			if got != planModel {
				if text != "" {
					t.Errorf("plan %d lays out a prompt:\n%s", got, text)
				}
				return
			}
			for _, s := range tc.holds {
				if !strings.Contains(text, s) {
					t.Errorf("prompt text lacks %q:\n%s", s, text)
				}
			}
			for _, s := range tc.lacks {
				if strings.Contains(text, s) {
					t.Errorf("prompt text holds %q:\n%s", s, text)
				}
			}
		})
	}
}

func TestLLMReports(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name      string
		chat      *scriptedChat
		wantTitle string // "" means the extractive title
		wantErr   bool
	}{
		{"model report", &scriptedChat{answer: "```json\n{\"title\": \"Founders\", \"summary\": \"Who founded what.\", \"rating\": 7, \"findings\": [{\"summary\": \"a\", \"explanation\": \"b\"}]}\n```"}, "Founders", false},
		{"unreadable answer falls back", &scriptedChat{answer: "I cannot help with that."}, "", false},
		{"API error fails the run", &scriptedChat{err: errors.New("401 unauthorized")}, "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			store, communities := twoClusterStore(t)
			err := newLLMReporter(t, tc.chat).Reports(ctx, store, communities)
			if tc.wantErr {
				if err == nil {
					t.Fatal("want an error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			stored, err := store.CommunitiesByLevel(ctx, -1)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range stored {
				switch {
				case c.Title == "Lone Keeper":
				case tc.wantTitle != "" && c.Title != tc.wantTitle:
					t.Errorf("%s: title %q, want %q", c.ID, c.Title, tc.wantTitle)
				case tc.wantTitle == "" && !strings.Contains(c.Title, " and ") && !strings.Contains(c.Title, "Ilsa") && !strings.Contains(c.Title, "Port"):
					t.Errorf("%s: title %q is not an extractive one", c.ID, c.Title)
				}
				if len(c.Embedding) != 16 || c.Report == "" {
					t.Errorf("%s: report not stored: %+v", c.ID, c)
				}
			}
			joined := strings.Join(tc.chat.prompts, "\n")
			if !strings.Contains(joined, "Ilsa Marrow founded the guild.") || !strings.Contains(joined, "Teodor Vance (other)") {
				t.Errorf("prompts do not carry the community's entities and relations:\n%s", joined)
			}
			// The isolated entity's communities have no relations: no model call describes them.
			if strings.Contains(joined, "Lone Keeper") {
				t.Error("a community without relations cost a model call")
			}
			// Each cluster needs one call (two reads of an unreadable answer); coarser levels that
			// repeat a cluster reuse its report.
			perCommunity := 1
			if tc.wantTitle == "" {
				perCommunity = 2
			}
			if len(tc.chat.prompts) != 2*perCommunity {
				t.Errorf("%d model calls for %d communities, want %d", len(tc.chat.prompts), len(stored), 2*perCommunity)
			}
		})
	}
}
