package resolve

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/tokenizer"
	"github.com/stratarag/strata/pipeline/extract"
)

// memReader is a store holding a few entities and relations, for merge tests.
type memReader struct {
	entities  map[string]graph.Entity
	relations map[graph.RelationKey]graph.Relation
}

func (m memReader) Entities(_ context.Context, ids []string) ([]graph.Entity, error) {
	var out []graph.Entity
	for _, id := range ids {
		if e, ok := m.entities[id]; ok {
			out = append(out, e)
		}
	}
	return out, nil
}

func (m memReader) Relations(_ context.Context, keys []graph.RelationKey) ([]graph.Relation, error) {
	var out []graph.Relation
	for _, k := range keys {
		if r, ok := m.relations[k]; ok {
			out = append(out, r)
		}
	}
	return out, nil
}

func newResolver(t *testing.T, m memReader) *Resolver {
	tok, err := tokenizer.New()
	if err != nil {
		t.Fatal(err)
	}
	return &Resolver{Store: m, Tokenizer: tok}
}

func TestResolveMergesAcrossChunks(t *testing.T) {
	r := newResolver(t, memReader{})
	out, err := r.Resolve(context.Background(), []ChunkResult{
		{ChunkID: "c1", Result: extract.Result{
			Entities:  []extract.Entity{{Name: "Ilsa  Marrow", Type: "person", Description: "Founded the guild."}, {Name: "Saltmere Guild", Type: "organization", Description: "A guild."}},
			Relations: []extract.Relation{{Source: "Ilsa Marrow", Target: "Saltmere Guild", Description: "Founder of.", Strength: 2}},
		}},
		{ChunkID: "c2", Result: extract.Result{
			Entities: []extract.Entity{{Name: "ilsa marrow", Type: "PERSON", Description: "Invented the astrolabe."}, {Name: "Ilsa Marrow", Type: "person", Description: "Founded the guild."}},
			// Reversed direction, an entity no record declares, and a self-loop.
			Relations: []extract.Relation{
				{Source: "Saltmere Guild", Target: "Ilsa Marrow", Description: "Led by her.", Strength: 1},
				{Source: "Ilsa Marrow", Target: "Port Avel", Description: "Sailed to.", Strength: 0},
				{Source: "Ilsa Marrow", Target: "ILSA MARROW", Description: "self"},
			},
		}},
	})
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]graph.Entity{}
	for _, e := range out.Entities {
		byID[e.ID] = e
	}
	ilsa := byID["ILSA MARROW"]
	if ilsa.Name != "Ilsa Marrow" || ilsa.Type != "person" {
		t.Errorf("ilsa = %+v", ilsa)
	}
	if ilsa.Description != "Founded the guild.\nInvented the astrolabe." {
		t.Errorf("description = %q", ilsa.Description)
	}
	if avel := byID["PORT AVEL"]; avel.Type != DefaultEntityType {
		t.Errorf("undeclared relation endpoint should exist with type %q: %+v", DefaultEntityType, avel)
	}
	if len(out.Entities) != 3 {
		t.Errorf("got %d entities", len(out.Entities))
	}
	rels := map[graph.RelationKey]graph.Relation{}
	for _, rel := range out.Relations {
		rels[rel.Key()] = rel
	}
	guild := rels[graph.NewRelationKey("ILSA MARROW", "SALTMERE GUILD")]
	if guild.Weight != 3 || !reflect.DeepEqual(guild.ChunkIDs, []string{"c1", "c2"}) || !strings.Contains(guild.Description, "Led by her.") {
		t.Errorf("guild relation = %+v", guild)
	}
	if len(out.Relations) != 2 {
		t.Errorf("self-loop kept or relation missing: %+v", out.Relations)
	}
	if avel := rels[graph.NewRelationKey("ILSA MARROW", "PORT AVEL")]; avel.Weight != 1 {
		t.Errorf("a zero strength counts as 1: %+v", avel)
	}
	wantMentions := 5 // c1: ilsa, guild; c2: ilsa, guild, avel
	if len(out.Mentions) != wantMentions {
		t.Errorf("mentions = %v", out.Mentions)
	}
}

func TestResolveMergesWithStoreIdempotently(t *testing.T) {
	stored := memReader{
		entities: map[string]graph.Entity{
			"VELL": {ID: "VELL", Name: "Vell", Type: "other", Description: "An island.", Embedding: []float32{1}, ComponentID: 7},
		},
		relations: map[graph.RelationKey]graph.Relation{
			graph.NewRelationKey("SALTMERE", "VELL"): {Source: "SALTMERE", Target: "VELL", Description: "Trade.", Weight: 2, ChunkIDs: []string{"c1"}},
		},
	}
	r := newResolver(t, stored)
	again := ChunkResult{ChunkID: "c1", Result: extract.Result{
		Entities:  []extract.Entity{{Name: "Vell", Type: "location", Description: "An island."}},
		Relations: []extract.Relation{{Source: "Vell", Target: "Saltmere", Description: "Trade.", Strength: 2}},
	}}
	out, err := r.Resolve(context.Background(), []ChunkResult{again})
	if err != nil {
		t.Fatal(err)
	}
	// The type improves from "other", but the relation from an already-recorded chunk is not counted twice.
	if len(out.Relations) != 0 {
		t.Errorf("re-resolving a recorded chunk changed relations: %+v", out.Relations)
	}
	vell := out.Entities[0]
	if vell.Type != "location" || vell.Embedding == nil || vell.ComponentID != 7 {
		t.Errorf("type-only change should keep embedding and component: %+v", vell)
	}

	fresh := ChunkResult{ChunkID: "c9", Result: extract.Result{
		Entities:  []extract.Entity{{Name: "Vell", Type: "location", Description: "Neutral ground."}},
		Relations: []extract.Relation{{Source: "Vell", Target: "Saltmere", Description: "Signed a treaty.", Strength: 1}},
	}}
	out, err = r.Resolve(context.Background(), []ChunkResult{fresh})
	if err != nil {
		t.Fatal(err)
	}
	if out.Entities[0].Description != "An island.\nNeutral ground." || out.Entities[0].Embedding != nil {
		t.Errorf("new description should merge and clear the embedding: %+v", out.Entities[0])
	}
	rel := out.Relations[0]
	if rel.Weight != 3 || !reflect.DeepEqual(rel.ChunkIDs, []string{"c1", "c9"}) || rel.Description != "Trade.\nSigned a treaty." {
		t.Errorf("relation = %+v", rel)
	}
}

type recordingSummarizer struct{ calls int }

func (s *recordingSummarizer) Summarize(_ context.Context, name string, parts []string) (string, error) {
	s.calls++
	return name + " summary of " + string(rune('0'+len(parts))), nil
}

func TestCondenseLongDescriptions(t *testing.T) {
	long := strings.Repeat("word ", 300)
	var results []ChunkResult
	for i := range 3 {
		results = append(results, ChunkResult{ChunkID: string(rune('a' + i)), Result: extract.Result{
			Entities: []extract.Entity{{Name: "Vell", Type: "location", Description: long + string(rune('A'+i))}},
		}})
	}
	r := newResolver(t, memReader{})
	out, err := r.Resolve(context.Background(), results)
	if err != nil {
		t.Fatal(err)
	}
	if n := r.Tokenizer.Count(out.Entities[0].Description); n > 500 {
		t.Errorf("extractive condensing left %d tokens", n)
	}
	if !strings.HasSuffix(out.Entities[0].Description, "A") {
		t.Error("extractive condensing should keep the earliest part")
	}

	s := &recordingSummarizer{}
	r.Summarizer = s
	out, err = r.Resolve(context.Background(), results)
	if err != nil {
		t.Fatal(err)
	}
	if s.calls != 1 || out.Entities[0].Description != "Vell summary of 3" {
		t.Errorf("summarizer calls %d, description %q", s.calls, out.Entities[0].Description)
	}
}

// TestFullDescriptionNotRewritten: a stored entity whose description fills the token budget is
// not written again when a later chunk adds a part that extractive condensing drops, and a part
// that fits still updates it.
func TestFullDescriptionNotRewritten(t *testing.T) {
	stored := graph.Entity{ID: graph.NormalizeID("Vell"), Name: "Vell", Type: "location", Description: "A port.", Embedding: []float32{1}}
	r := newResolver(t, memReader{entities: map[string]graph.Entity{stored.ID: stored}})
	r.MaxDescriptionTokens = 8
	tests := []struct {
		name string
		desc string
		want int // entities written
	}{
		{"new part over the budget", "A city on the northern coast with a harbour.", 0},
		{"new part that fits", "Rainy.", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := r.Resolve(context.Background(), []ChunkResult{{ChunkID: "c", Result: extract.Result{
				Entities: []extract.Entity{{Name: "Vell", Type: "location", Description: tt.desc}},
			}}})
			if err != nil {
				t.Fatal(err)
			}
			if len(out.Entities) != tt.want {
				t.Fatalf("%d entities written (%+v), want %d", len(out.Entities), out.Entities, tt.want)
			}
			if len(out.Mentions) != 1 {
				t.Errorf("%d mentions, want the chunk's mention all the same", len(out.Mentions))
			}
		})
	}
}
