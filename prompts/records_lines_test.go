package prompts

import (
	"reflect"
	"testing"
)

func TestParseRecordsLines(t *testing.T) {
	ilsa := EntityRecord{Name: "Ilsa Marrow", Type: "person"}
	guild := EntityRecord{Name: "Saltmere Guild", Type: "organization"}
	founded := RelationshipRecord{Source: "Ilsa Marrow", Target: "Saltmere Guild", Strength: 9}
	tests := []parseCase{
		{
			name: "canonical",
			in:   "ENTITIES\nIlsa Marrow | person\nSaltmere Guild | organization\nRELATIONSHIPS\nIlsa Marrow | Saltmere Guild | 9\n<|COMPLETE|>",
			ents: []EntityRecord{ilsa, guild}, rels: []RelationshipRecord{founded}, done: true,
		},
		{
			name: "no headings: the fields decide",
			in:   "Ilsa Marrow | PERSON\nIlsa Marrow | Saltmere Guild | 9\n<|COMPLETE|>",
			ents: []EntityRecord{ilsa}, rels: []RelationshipRecord{founded}, done: true,
		},
		{
			name: "Markdown headings, bullets, numbers and a table",
			in: "Here you go.\n## Entities:\n- Ilsa Marrow | person\n2. Saltmere Guild | organization\n\n**Relationships**\n" +
				"| SOURCE | TARGET | STRENGTH |\n|---|---|---|\n| Ilsa Marrow | Saltmere Guild | 9/10 |\n<|COMPLETE|>",
			ents: []EntityRecord{ilsa, guild}, rels: []RelationshipRecord{founded}, done: true,
		},
		{
			name: "a relationship without strength under its heading",
			in:   "RELATIONSHIPS\nIlsa Marrow | Saltmere Guild\n<|COMPLETE|>",
			rels: []RelationshipRecord{{Source: "Ilsa Marrow", Target: "Saltmere Guild", Strength: DefaultStrength}}, done: true,
		},
		{
			name: "an entity with a description",
			in:   "ENTITIES\nIlsa Marrow | person | Founder of the guild.\n<|COMPLETE|>",
			ents: []EntityRecord{{Name: "Ilsa Marrow", Type: "person", Description: "Founder of the guild."}}, done: true,
		},
		{
			name: "truncated last line is dropped",
			in:   "ENTITIES\nIlsa Marrow | person\nRELATIONSHIPS\nIlsa Marrow | Saltm",
			ents: []EntityRecord{ilsa}, dropped: 1,
		},
		{
			name: "unreadable lines are counted",
			in:   "ENTITIES\n | person\nIlsa Marrow | person\nRELATIONSHIPS\nIlsa Marrow | Ilsa Marrow | 3\n<|COMPLETE|>",
			ents: []EntityRecord{ilsa}, dropped: 2, done: true,
		},
		{
			name:    "prose alone is one dropped answer",
			in:      "The passage names nobody.",
			dropped: 1,
		},
		{
			name: "the completion marker alone",
			in:   "<|COMPLETE|>",
			done: true,
		},
	}
	checkParse(t, tests)
}

func TestFormatLinesRoundTrip(t *testing.T) {
	ents := []EntityRecord{
		{Name: "Ilsa Marrow", Type: "Person", Description: "dropped"},
		{Name: "A|B Corp", Type: "organization"},
		{Name: "C#", Type: "technology"},
	}
	rels := []RelationshipRecord{{Source: "Ilsa Marrow", Target: "C#", Description: "dropped", Strength: 2.5}}
	got := ParseRecords(FormatLines(ents, rels))
	want := Records{
		Entities:      []EntityRecord{{Name: "Ilsa Marrow", Type: "person"}, {Name: "A B Corp", Type: "organization"}, {Name: "C#", Type: "technology"}},
		Relationships: []RelationshipRecord{{Source: "Ilsa Marrow", Target: "C#", Strength: 2.5}},
		Complete:      true,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, want)
	}
	if again := ParseRecords(FormatLines(got.Entities, got.Relationships)); !reflect.DeepEqual(again, got) {
		t.Errorf("second round trip changed records:\n got %+v\nwant %+v", again, got)
	}
	if s := FormatLines(nil, nil); s != CompleteMarker {
		t.Errorf("no records: %q, want the marker alone", s)
	}
}
