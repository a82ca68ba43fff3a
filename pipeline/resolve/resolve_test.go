package resolve

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/stratarag/strata/internal/embedded"
	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/tokenizer"
	"github.com/stratarag/strata/pipeline/extract"
)

// store is an empty embedded store for the test.
func store(t *testing.T) *embedded.Store {
	t.Helper()
	s, err := embedded.Open(context.Background(), t.TempDir(), embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func newResolver(t *testing.T, s Reader) *Resolver {
	t.Helper()
	tok, err := tokenizer.New()
	if err != nil {
		t.Fatal(err)
	}
	return &Resolver{Store: s, Tokenizer: tok}
}

// change resolves new chunks and deleted ones against s and writes the result as ingest does:
// the chunks, their evidence and what it derives, in one batch.
func change(t *testing.T, r *Resolver, s *embedded.Store, results []ChunkResult, deleted ...string) Output {
	t.Helper()
	out, err := r.Resolve(context.Background(), results, deleted)
	if err != nil {
		t.Fatal(err)
	}
	b := graph.Batch{
		Entities: out.Entities, Relations: out.Relations, Mentions: out.Mentions,
		DeleteChunks: deleted, DeleteEntities: out.DeleteEntities, DeleteRelations: out.DeleteRelations,
	}
	docs := map[string]bool{}
	for _, cr := range results {
		if !docs[cr.DocumentID] {
			docs[cr.DocumentID] = true
			b.Documents = append(b.Documents, graph.Document{ID: cr.DocumentID, Metadata: "{}"})
		}
		b.Chunks = append(b.Chunks, graph.Chunk{ID: cr.ChunkID, DocumentID: cr.DocumentID, Seq: cr.Seq, Text: cr.ChunkID})
	}
	if err := s.Apply(context.Background(), b); err != nil {
		t.Fatal(err)
	}
	return out
}

func chunk(id, doc string, seq int, entities []extract.Entity, relations ...extract.Relation) ChunkResult {
	return ChunkResult{ChunkID: id, DocumentID: doc, Seq: seq, Result: extract.Result{Entities: entities, Relations: relations}}
}

func TestEvidenceOfOneChunk(t *testing.T) {
	mentions, relations := Evidence([]ChunkResult{chunk("c1", "d", 0,
		[]extract.Entity{
			{Name: "Ilsa  Marrow", Type: "person", Description: "Founded the guild."},
			{Name: "ilsa marrow", Type: "PERSON", Description: "Invented the astrolabe.\nFounded the guild."},
			{Name: "ILSA MARROW", Type: "location"},
		},
		extract.Relation{Source: "Saltmere Guild", Target: "Ilsa Marrow", Description: "Led by her.", Strength: 2},
		extract.Relation{Source: "Ilsa Marrow", Target: "Saltmere Guild", Description: "Founder of."},
		extract.Relation{Source: "Ilsa Marrow", Target: "ILSA MARROW", Description: "self"},
	)})
	want := []graph.Mention{
		{ChunkID: "c1", EntityID: "ILSA MARROW", Name: "Ilsa Marrow", Type: "person", Description: "Founded the guild.\nInvented the astrolabe.", DocumentID: "d"},
		{ChunkID: "c1", EntityID: "SALTMERE GUILD", Name: "Saltmere Guild", DocumentID: "d"},
	}
	if !reflect.DeepEqual(mentions, want) {
		t.Errorf("mentions =\n%+v\nwant\n%+v", mentions, want)
	}
	wantRel := []graph.RelationEvidence{{Source: "ILSA MARROW", Target: "SALTMERE GUILD", ChunkID: "c1", Description: "Led by her.\nFounder of.", Weight: 3, DocumentID: "d"}}
	if !reflect.DeepEqual(relations, wantRel) {
		t.Errorf("relation evidence = %+v, want %+v (the self-loop dropped, no strength counts 1)", relations, wantRel)
	}
}

func TestResolveDerivesFromAllEvidence(t *testing.T) {
	s := store(t)
	r := newResolver(t, s)
	change(t, r, s, []ChunkResult{
		chunk("c2", "b", 0, []extract.Entity{{Name: "vell", Type: "location", Description: "Neutral ground."}},
			extract.Relation{Source: "Vell", Target: "Saltmere", Description: "Signed a treaty.", Strength: 1}),
	})
	change(t, r, s, []ChunkResult{
		chunk("c1", "a", 3, []extract.Entity{{Name: "Vell", Type: "other", Description: "An island."}},
			extract.Relation{Source: "Saltmere", Target: "Vell", Description: "Trade.", Strength: 2}),
	})
	es, err := s.Entities(context.Background(), []string{"VELL", "SALTMERE"})
	if err != nil {
		t.Fatal(err)
	}
	// Document "a" comes first in merge order whatever the order of ingest; "other" loses to a
	// real type.
	if len(es) != 2 || es[0].Name != "Vell" || es[0].Type != "location" || es[0].Description != "An island.\nNeutral ground." {
		t.Errorf("VELL = %+v", es)
	}
	if es[1].Type != DefaultEntityType || es[1].Description != "" {
		t.Errorf("an entity only relations name gets the default type: %+v", es[1])
	}
	rels, err := s.Relations(context.Background(), []graph.RelationKey{graph.NewRelationKey("VELL", "SALTMERE")})
	if err != nil {
		t.Fatal(err)
	}
	if len(rels) != 1 || rels[0].Weight != 3 || !slices.Equal(rels[0].ChunkIDs, []string{"c1", "c2"}) || rels[0].Description != "Trade.\nSigned a treaty." {
		t.Errorf("relation = %+v", rels)
	}

	// Deleting c1 takes what it said; deleting c2 as well leaves nothing.
	out := change(t, r, s, nil, "c1")
	if len(out.Entities) != 1 || out.Entities[0].Description != "Neutral ground." || out.Entities[0].Name != "vell" || out.Entities[0].Embedding != nil {
		t.Errorf("after deleting c1: %+v", out.Entities)
	}
	if len(out.DeleteEntities)+len(out.DeleteRelations) != 0 {
		t.Errorf("after deleting c1, deletes %v %v", out.DeleteEntities, out.DeleteRelations)
	}
	out = change(t, r, s, nil, "c2")
	if !slices.Equal(out.DeleteEntities, []string{"SALTMERE", "VELL"}) || len(out.DeleteRelations) != 1 {
		t.Errorf("after deleting c2: delete %v and %v", out.DeleteEntities, out.DeleteRelations)
	}
	if e, r, err := s.Unsupported(context.Background()); err != nil || e+r != 0 {
		t.Errorf("Unsupported = %d, %d, %v", e, r, err)
	}
	if st, err := s.Stats(context.Background()); err != nil || st.Nodes["Entity"] != 0 || st.Relationships["RELATED"] != 0 {
		t.Errorf("left behind: %+v, %v", st, err)
	}
}

// TestResolveOrderIndependent: the same chunks resolved in any order and grouping, with chunks
// added and deleted in between, leave the graph one resolution of the final chunks builds.
func TestResolveOrderIndependent(t *testing.T) {
	all := []ChunkResult{
		chunk("a0", "a", 0, []extract.Entity{{Name: "Vell", Type: "location", Description: "An island."}, {Name: "Orin", Type: "person", Description: "A sailor."}},
			extract.Relation{Source: "Orin", Target: "Vell", Description: "Born on.", Strength: 2}),
		chunk("a1", "a", 1, []extract.Entity{{Name: "Orin", Type: "person", Description: "Captain of the Gull."}}),
		chunk("b0", "b", 0, []extract.Entity{{Name: "VELL", Type: "event", Description: "A treaty."}, {Name: "Orin", Type: "location", Description: "A sailor."}},
			extract.Relation{Source: "Vell", Target: "Orin", Description: "Signed by.", Strength: 1}),
		chunk("c0", "c", 0, []extract.Entity{{Name: "Gull", Type: "product", Description: "A ship."}},
			extract.Relation{Source: "Orin", Target: "Gull", Description: "Sails."}),
	}
	snapshot := func(s *embedded.Store) ([]graph.Entity, []graph.Relation) {
		es, err := s.EntitiesByLayer(context.Background(), 0)
		if err != nil {
			t.Fatal(err)
		}
		for i := range es {
			es[i].Embedding = nil
		}
		var keys []graph.RelationKey
		for _, a := range es {
			for _, b := range es {
				if a.ID < b.ID {
					keys = append(keys, graph.NewRelationKey(a.ID, b.ID))
				}
			}
		}
		rs, err := s.Relations(context.Background(), keys)
		if err != nil {
			t.Fatal(err)
		}
		return es, rs
	}
	// The reference: a0, a1, b0 in one change.
	ref := store(t)
	change(t, newResolver(t, ref), ref, all[:3])
	wantE, wantR := snapshot(ref)

	s := store(t)
	r := newResolver(t, s)
	change(t, r, s, all[2:])   // b0, c0
	change(t, r, s, all[1:2])  // a1
	change(t, r, s, nil, "c0") // delete c0
	change(t, r, s, all[:1])   // a0
	change(t, r, s, all[:1])   // a0 again: replaces its own evidence
	gotE, gotR := snapshot(s)
	if !reflect.DeepEqual(gotE, wantE) {
		t.Errorf("entities =\n%+v\nwant\n%+v", gotE, wantE)
	}
	if !reflect.DeepEqual(gotR, wantR) {
		t.Errorf("relations =\n%+v\nwant\n%+v", gotR, wantR)
	}
	if len(gotE) != 2 || gotE[0].Type != "person" {
		t.Errorf("want ORIN (person, 2 of 3 chunks) and VELL: %+v", gotE)
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
		results = append(results, chunk(string(rune('a'+i)), "d", i, []extract.Entity{{Name: "Vell", Type: "location", Description: long + string(rune('A'+i))}}))
	}
	s := store(t)
	r := newResolver(t, s)
	out, err := r.Resolve(context.Background(), results, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := r.Tokenizer.Count(out.Entities[0].Description); n > 500 {
		t.Errorf("extractive condensing left %d tokens", n)
	}
	if !strings.HasSuffix(out.Entities[0].Description, "A") {
		t.Error("extractive condensing should keep the earliest part")
	}

	sum := &recordingSummarizer{}
	r.Summarizer = sum
	out, err = r.Resolve(context.Background(), results, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sum.calls != 1 || out.Entities[0].Description != "Vell summary of 3" {
		t.Errorf("summarizer calls %d, description %q", sum.calls, out.Entities[0].Description)
	}
}

// TestUnchangedEntityNotRewritten: an entity that derives as stored is not written again (it
// keeps its embedding), while the chunk's evidence is.
func TestUnchangedEntityNotRewritten(t *testing.T) {
	s := store(t)
	r := newResolver(t, s)
	r.MaxDescriptionTokens = 8
	change(t, r, s, []ChunkResult{chunk("c1", "a", 0, []extract.Entity{{Name: "Vell", Type: "location", Description: "A port."}})})
	for _, tt := range []struct {
		name string
		desc string
		want int // entities written
	}{
		{"new part over the budget", "A city on the northern coast with a harbour.", 0},
		{"new part that fits", "Rainy.", 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, err := r.Resolve(context.Background(), []ChunkResult{chunk("c2", "a", 1, []extract.Entity{{Name: "Vell", Type: "location", Description: tt.desc}})}, nil)
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
