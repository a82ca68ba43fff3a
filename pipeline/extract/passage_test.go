package extract

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/stratarag/strata/internal/llm"
	"github.com/stratarag/strata/internal/llm/fakeopenai"
)

const passage = "Ilsa Marrow founded the Saltmere Guild in 1102. Marrow led it for thirty years. " +
	"The guild moved to Vellmoor in 1140. Corvin Hale surveyed the harbour of Vell."

func TestDescribeFromPassage(t *testing.T) {
	tests := []struct {
		name string
		in   Result
		want Result
	}{
		{
			name: "an entity gets the sentences naming it, a shortened name included",
			in:   Result{Entities: []Entity{{Name: "Ilsa Marrow", Type: "person"}}},
			want: Result{Entities: []Entity{{Name: "Ilsa Marrow", Type: "person",
				Description: "Ilsa Marrow founded the Saltmere Guild in 1102."}}},
		},
		{
			name: "a name is a whole word: Vell is not in Vellmoor",
			in:   Result{Entities: []Entity{{Name: "Vell"}}},
			want: Result{Entities: []Entity{{Name: "Vell", Description: "Corvin Hale surveyed the harbour of Vell."}}},
		},
		{
			name: "a description the model wrote stays",
			in:   Result{Entities: []Entity{{Name: "Corvin Hale", Description: "A surveyor."}}},
			want: Result{Entities: []Entity{{Name: "Corvin Hale", Description: "A surveyor."}}},
		},
		{
			name: "a relation gets the sentence naming both ends",
			in:   Result{Relations: []Relation{{Source: "Saltmere Guild", Target: "Ilsa Marrow", Strength: 8}}},
			want: Result{Relations: []Relation{{Source: "Saltmere Guild", Target: "Ilsa Marrow", Strength: 8,
				Description: "Ilsa Marrow founded the Saltmere Guild in 1102."}}},
		},
		{
			name: "a relation across sentences gets the first naming each end, in passage order",
			in:   Result{Relations: []Relation{{Source: "Corvin Hale", Target: "Saltmere Guild"}}},
			want: Result{Relations: []Relation{{Source: "Corvin Hale", Target: "Saltmere Guild",
				Description: "Ilsa Marrow founded the Saltmere Guild in 1102. Corvin Hale surveyed the harbour of Vell."}}},
		},
		{
			name: "a name the passage never gives stays undescribed",
			in:   Result{Entities: []Entity{{Name: "Brenna Quay"}}},
			want: Result{Entities: []Entity{{Name: "Brenna Quay"}}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.in
			describeFromPassage(passage, &got)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

// The short form of a name is used only when no other name of the chunk ends with it, and
// gives the entity the sentences it is named in by that form too.
func TestShortNames(t *testing.T) {
	got := shortNames([]string{"Ilsa Marrow", "Saltmere Guild", "Harbour Guild", "Edda Fenwick", "Al Bo"})
	want := map[string]string{"ilsa marrow": "marrow", "edda fenwick": "fenwick"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("shortNames = %v, want %v", got, want)
	}
	r := Result{Entities: []Entity{{Name: "Edda Fenwick"}}}
	describeFromPassage("Fenwick drew the charts. Nobody else did.", &r)
	if r.Entities[0].Description != "Fenwick drew the charts." {
		t.Errorf("described by its short form: %q", r.Entities[0].Description)
	}
}

// Relations join the entities one sentence names, in order of the sentences, each pair once with
// the sentences it shares as its strength; Vell is not in Vellmoor.
func TestPassageRelations(t *testing.T) {
	ents := []Entity{{Name: "Saltmere Guild"}, {Name: "Ilsa Marrow"}, {Name: "Corvin Hale"}, {Name: "Vell"}}
	text := passage + " Ilsa Marrow hired Corvin Hale for the Saltmere Guild."
	got := passageRelations(text, ents)
	want := []Relation{
		{Source: "Saltmere Guild", Target: "Ilsa Marrow", Strength: 2},
		{Source: "Corvin Hale", Target: "Vell", Strength: 1},
		{Source: "Ilsa Marrow", Target: "Corvin Hale", Strength: 1},
		{Source: "Saltmere Guild", Target: "Corvin Hale", Strength: 1},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
}

// With passage descriptions (the default) the prompt asks for no descriptions, the answer
// carries none, and every record the passage names is described by its sentences; the
// entities mode asks for entities alone and joins those one sentence names.
func TestLLMPassageDescriptions(t *testing.T) {
	ctx := context.Background()
	for _, mode := range []Mode{ModeCombined, ModeEntities} {
		t.Run(string(mode), func(t *testing.T) {
			c, s := fakeClient(t, fakeopenai.Options{}, llm.Config{})
			x := NewLLM(c, LLMOptions{Mode: mode, EstimateSamples: -1})
			est, err := x.Estimate(ctx, []string{passage})
			if err != nil {
				t.Fatal(err)
			}
			res, err := x.Extract(ctx, passage)
			if err != nil {
				t.Fatal(err)
			}
			// The estimate renders the prompt the run sends.
			if e, got := est.Total(), c.Stats().Total; e.Calls != 1 || e.PromptTokens != got.PromptTokens {
				t.Errorf("estimate %+v, the run %+v", e, got)
			}
			if len(res.Entities) == 0 || len(res.Relations) == 0 {
				t.Fatalf("found %+v", res)
			}
			for _, e := range res.Entities {
				if e.Description == "" || !strings.Contains(passage, strings.TrimSuffix(e.Description, "…")) {
					t.Errorf("entity %q described %q, not by the passage", e.Name, e.Description)
				}
			}
			for _, r := range res.Relations {
				if r.Description == "" {
					t.Errorf("relation %s -- %s undescribed", r.Source, r.Target)
				}
			}
			if got := s.Counts().Requests; got != 1 {
				t.Errorf("%d requests, want one per chunk", got)
			}
		})
	}
}
