package extract

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/stratarag/strata/internal/llm"
	"github.com/stratarag/strata/internal/llm/fakeopenai"
)

func TestPacks(t *testing.T) {
	tests := []struct {
		sizes []int
		want  [][]int
	}{
		{nil, nil},
		{[]int{100}, [][]int{{0}}},
		{[]int{100, 200, 300, 900, 50, 60}, [][]int{{0, 1, 2}, {3}, {4, 5}}},
		{[]int{500, 500, 500}, [][]int{{0, 1}, {2}}},
		{[]int{601, 10}, [][]int{{0}, {1}}},
	}
	for _, tc := range tests {
		if got := Packs(tc.sizes, 600, 1200); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Packs(%v) = %v, want %v", tc.sizes, got, tc.want)
		}
	}
}

// TestExtractPack: one call for the pack; each text gets the records it names, described by its
// own sentences; a relation whose ends two different texts name is nobody's.
func TestExtractPack(t *testing.T) {
	texts := []string{
		"Ilsa Marrow founded the Saltmere Guild in 1102.",
		"  ",
		"Corvin Hale surveyed Port Avel for the Saltmere Guild. Ilsa Marrow sailed to Port Avel.",
	}
	c, s := fakeClient(t, fakeopenai.Options{}, llm.Config{})
	got, err := NewLLM(c, LLMOptions{}).ExtractPack(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if n := s.Counts().Chat; n != 1 || len(got) != len(texts) {
		t.Fatalf("%d calls, %d results", n, len(got))
	}
	names := func(r Result) (ents []string, rels []string) {
		for _, e := range r.Entities {
			if !strings.Contains(texts[0]+texts[2], e.Description) || e.Description == "" {
				t.Errorf("entity %q described %q", e.Name, e.Description)
			}
			ents = append(ents, e.Name)
		}
		for _, r := range r.Relations {
			rels = append(rels, r.Source+" -- "+r.Target)
		}
		return ents, rels
	}
	e0, r0 := names(got[0])
	if !reflect.DeepEqual(e0, []string{"Ilsa Marrow", "Saltmere Guild"}) || !reflect.DeepEqual(r0, []string{"Ilsa Marrow -- Saltmere Guild"}) {
		t.Errorf("first text: %v %v", e0, r0)
	}
	if len(got[1].Entities)+len(got[1].Relations) != 0 {
		t.Errorf("blank text got %+v", got[1])
	}
	e2, r2 := names(got[2])
	for _, want := range []string{"Corvin Hale", "Port Avel", "Saltmere Guild", "Ilsa Marrow"} {
		found := false
		for _, e := range e2 {
			found = found || e == want
		}
		if !found {
			t.Errorf("third text lacks %s: %v", want, e2)
		}
	}
	for _, r := range r2 {
		if r == "Ilsa Marrow -- Saltmere Guild" {
			t.Errorf("third text names both ends in separate sentences only, yet got %s", r)
		}
	}
	for _, e := range got[2].Entities {
		if e.Name == "Ilsa Marrow" && e.Description != "Ilsa Marrow sailed to Port Avel." {
			t.Errorf("Ilsa Marrow in the third text described %q, not by its own sentence", e.Description)
		}
	}
}
