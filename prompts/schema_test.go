package prompts

import (
	"encoding/json"
	"slices"
	"testing"
)

func TestExtractionSchemaAsksForWhatThePromptDoes(t *testing.T) {
	tests := []struct {
		entities, relations, descriptions bool
		required                          []string
	}{
		{true, true, true, []string{"entities", "relationships"}},
		{true, false, true, []string{"entities"}},
		{false, true, true, []string{"relationships"}},
		{true, true, false, []string{"entities", "relationships"}},
	}
	for _, tc := range tests {
		var s struct {
			Required   []string
			Properties map[string]struct {
				MaxItems int
				Items    struct {
					Required   []string
					Properties map[string]struct{ Enum []string }
				}
			}
		}
		if err := json.Unmarshal(ExtractionSchema([]string{"person", "place"}, tc.entities, tc.relations, tc.descriptions), &s); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(s.Required, tc.required) || len(s.Properties) != len(tc.required) {
			t.Errorf("entities %v relations %v: required %v, properties %v", tc.entities, tc.relations, s.Required, s.Properties)
		}
		for name, p := range s.Properties {
			if p.MaxItems == 0 {
				t.Errorf("%s is unbounded", name)
			}
			_, described := p.Items.Properties["description"]
			if described != tc.descriptions || slices.Contains(p.Items.Required, "description") != tc.descriptions {
				t.Errorf("descriptions %v: %s items have properties %v, required %v", tc.descriptions, name, p.Items.Properties, p.Items.Required)
			}
		}
		if tc.entities && !slices.Equal(s.Properties["entities"].Items.Properties["type"].Enum, []string{"person", "place"}) {
			t.Errorf("entity types not enumerated: %+v", s.Properties["entities"])
		}
	}
}

// An answer that follows each schema is read in full by the task's parser.
func TestSchemaAnswersParse(t *testing.T) {
	recs := ParseRecords(`{"entities":[{"name":"Ada Lovelace","type":"person","description":"A mathematician."}],` +
		`"relationships":[{"source":"Ada Lovelace","target":"Charles Babbage","description":"Worked with him.","strength":8}]}`)
	if len(recs.Entities) != 1 || len(recs.Relationships) != 1 || recs.Dropped != 0 || recs.Relationships[0].Strength != 8 {
		t.Errorf("records %+v", recs)
	}
	r, _, err := ParseReport(`{"title":"T","summary":"S","rating":7,"rating_explanation":"E","findings":[{"summary":"F","explanation":"X"}]}`)
	if err != nil || r.Title != "T" || len(r.Findings) != 1 || r.Rating != 7 {
		t.Errorf("report %+v, %v", r, err)
	}
	points, _, err := ParsePoints(`{"points":[{"description":"A point [report:0-1].","score":80}]}`)
	if err != nil || len(points) != 1 || points[0].Score != 80 {
		t.Errorf("points %+v, %v", points, err)
	}
}
