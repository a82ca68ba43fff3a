package extract

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/stratarag/strata/internal/testcorpus"
)

func TestOfflineSentenceAndSpans(t *testing.T) {
	tests := []struct {
		text string
		want []string // entity names in order of first mention
		typ  map[string]string
	}{
		{
			text: "Ilsa Marrow founded the Saltmere Cartographers' Guild in 1102. The guild's charts reached Port Avel.",
			want: []string{"Ilsa Marrow", "Saltmere Cartographers' Guild", "Port Avel"},
			typ:  map[string]string{"Ilsa Marrow": "person", "Saltmere Cartographers' Guild": "organization", "Port Avel": "location"},
		},
		{
			// Sentence-initial words are grammar unless capitalized elsewhere; "Dr." does not end a sentence.
			text: "However, Dr. Lira Solenne stayed. Yesterday the Treaty of Vell was signed by Vell and Saltmere.",
			want: []string{"Lira Solenne", "Treaty of Vell", "Vell", "Saltmere"},
			typ:  map[string]string{"Treaty of Vell": "event"},
		},
		{
			// Headings are captions, commas break names, possessives are dropped.
			text: "# The Grey Heron Affair\n\nCorvin Hale's ship, Grey Heron, sailed in March.",
			want: []string{"Corvin Hale", "Grey Heron"},
		},
	}
	for _, tc := range tests {
		res, err := NewOffline().Extract(context.Background(), tc.text)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		types := map[string]string{}
		for _, e := range res.Entities {
			got = append(got, e.Name)
			types[e.Name] = e.Type
			if e.Description == "" {
				t.Errorf("%q has no description", e.Name)
			}
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q:\n got %q\nwant %q", tc.text, got, tc.want)
		}
		for name, typ := range tc.typ {
			if types[name] != typ {
				t.Errorf("%q: type %q, want %q", name, types[name], typ)
			}
		}
	}
}

func TestOfflineRelationsCountCooccurrence(t *testing.T) {
	text := "Ilsa Marrow trained Corvin Hale. Corvin Hale later guided Ilsa Marrow home. Port Avel was quiet."
	res, err := NewOffline().Extract(context.Background(), text)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Relations) != 1 {
		t.Fatalf("relations = %+v", res.Relations)
	}
	r := res.Relations[0]
	if r.Strength != 2 || !strings.Contains(r.Description, "trained") || !strings.Contains(r.Description, "guided") {
		t.Errorf("relation = %+v", r)
	}
}

func TestOfflineDeterministic(t *testing.T) {
	text := "Ilsa Marrow met Corvin Hale, Maren Quill, Osric Daventh, Hester Gale, Teodor Vance, Lira Solenne and Bastian Crowe at Port Avel."
	a, _ := NewOffline().Extract(context.Background(), text)
	for range 5 {
		b, _ := NewOffline().Extract(context.Background(), text)
		if !reflect.DeepEqual(a, b) {
			t.Fatal("extraction is not deterministic")
		}
	}
	// Nine names in one sentence: pairs are limited to neighbours, not all 36.
	if n := len(a.Relations); n == 0 || n >= 36 {
		t.Errorf("got %d relations for a dense sentence", n)
	}
}

// TestOfflineFindsExpectedFacts checks the testdata corpus against testdata/expected.json: every
// listed entity is found in every document that names it, and every listed relation is found in its
// document.
func TestOfflineFindsExpectedFacts(t *testing.T) {
	expected, err := testcorpus.ReadExpected()
	if err != nil {
		t.Fatal(err)
	}
	docs := loadTestCorpus(t, testcorpus.Dir())
	results := map[string]Result{}
	for id, text := range docs {
		res, err := NewOffline().Extract(context.Background(), text)
		if err != nil {
			t.Fatal(err)
		}
		results[id] = res
	}
	for _, e := range expected.Entities {
		for _, doc := range e.Documents {
			if !hasEntity(results[doc], e.Name) {
				t.Errorf("entity %q not extracted from %s", e.Name, doc)
			}
		}
	}
	for _, r := range expected.Relations {
		if !hasRelation(results[r.Document], r.Source, r.Target) {
			t.Errorf("relation %q -- %q not extracted from %s", r.Source, r.Target, r.Document)
		}
	}
}

func loadTestCorpus(t *testing.T, dir string) map[string]string {
	t.Helper()
	docs := map[string]string{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if filepath.Ext(e.Name()) != ".jsonl" {
			docs[e.Name()] = string(data)
			continue
		}
		for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			var rec struct{ ID, Text string }
			if err := json.Unmarshal([]byte(line), &rec); err != nil {
				t.Fatal(err)
			}
			docs[rec.ID] = rec.Text
		}
	}
	return docs
}

func hasEntity(r Result, name string) bool {
	for _, e := range r.Entities {
		if strings.EqualFold(e.Name, name) {
			return true
		}
	}
	return false
}

func hasRelation(r Result, a, b string) bool {
	for _, rel := range r.Relations {
		if (strings.EqualFold(rel.Source, a) && strings.EqualFold(rel.Target, b)) ||
			(strings.EqualFold(rel.Source, b) && strings.EqualFold(rel.Target, a)) {
			return true
		}
	}
	return false
}
