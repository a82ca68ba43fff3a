package prompts

import (
	"math"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// parseCase is an answer and what ParseRecords must find in it.
type parseCase struct {
	name    string
	in      string
	ents    []EntityRecord
	rels    []RelationshipRecord
	dropped int
	done    bool
}

// checkParse runs ParseRecords on every case.
func checkParse(t *testing.T, tests []parseCase) {
	t.Helper()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := ParseRecords(tc.in)
			if !reflect.DeepEqual(got.Entities, tc.ents) {
				t.Errorf("entities = %#v\nwant %#v", got.Entities, tc.ents)
			}
			if !reflect.DeepEqual(got.Relationships, tc.rels) {
				t.Errorf("relationships = %#v\nwant %#v", got.Relationships, tc.rels)
			}
			if got.Dropped != tc.dropped {
				t.Errorf("dropped = %d, want %d", got.Dropped, tc.dropped)
			}
			if got.Complete != tc.done {
				t.Errorf("complete = %v, want %v", got.Complete, tc.done)
			}
		})
	}
}

func TestParseRecords(t *testing.T) {
	ilsa := EntityRecord{"Ilsa Marrow", "person", "Founder of the guild."}
	guild := EntityRecord{"Saltmere Guild", "organization", "A guild of chart makers."}
	founded := RelationshipRecord{"Ilsa Marrow", "Saltmere Guild", "Ilsa Marrow founded the guild.", 9}
	tests := []parseCase{
		{
			name: "canonical",
			in: `("entity"<|>Ilsa Marrow<|>person<|>Founder of the guild.)##
("entity"<|>Saltmere Guild<|>organization<|>A guild of chart makers.)##
("relationship"<|>Ilsa Marrow<|>Saltmere Guild<|>Ilsa Marrow founded the guild.<|>9)##
<|COMPLETE|>`,
			ents: []EntityRecord{ilsa, guild}, rels: []RelationshipRecord{founded}, done: true,
		},
		{
			name: "one line, spaces, capitalized kinds and types",
			in:   `( "Entity" <|> Ilsa Marrow <|> PERSON <|> Founder of the guild. )##("RELATIONSHIP"<|>Ilsa Marrow<|>Saltmere Guild<|>Ilsa Marrow founded the guild.<|>9)<|complete|>`,
			ents: []EntityRecord{ilsa}, rels: []RelationshipRecord{founded}, done: true,
		},
		{
			name: "code fence, prose and reasoning around records",
			in: "<think>The passage mentions (\"entity\"<|>Nobody<|>person<|>x)</think>Here are the records:\n```\n" +
				`("entity"<|>"Ilsa Marrow"<|>"person"<|>"Founder of the guild.")` + "\n```\nHope this helps (really).\n<|COMPLETE|>",
			ents: []EntityRecord{ilsa}, done: true,
		},
		{
			name: "no parentheses, no record delimiters",
			in:   "\"entity\"<|>Ilsa Marrow<|>person<|>Founder of the guild.\n\"relationship\"<|>Ilsa Marrow<|>Saltmere Guild<|>Ilsa Marrow founded the guild.<|>9\n<|COMPLETE|>",
			ents: []EntityRecord{ilsa}, rels: []RelationshipRecord{founded}, done: true,
		},
		{
			name: "parentheses inside descriptions",
			in:   `("entity"<|>Ilsa Marrow<|>person<|>Founder (in 1102) of the guild (Saltmere).)##` + "\n<|COMPLETE|>",
			ents: []EntityRecord{{"Ilsa Marrow", "person", "Founder (in 1102) of the guild (Saltmere)."}}, done: true,
		},
		{
			name: "truncated last record is dropped",
			in: `("entity"<|>Ilsa Marrow<|>person<|>Founder of the guild.)##
("entity"<|>Saltmere Guild<|>organization<|>A guild of ch`,
			ents: []EntityRecord{ilsa}, dropped: 1,
		},
		{
			name: "truncated after a closed record keeps it",
			in:   `("entity"<|>Ilsa Marrow<|>person<|>Founder of the guild.)##`,
			ents: []EntityRecord{ilsa},
		},
		{
			name: "missing fields, unknown kinds, self loops, empty names",
			in: `("entity"<|>Lonely)##
("entity"<|><|>person<|>no name)##
("content_keywords"<|>guild, charts)##
("relationship"<|>Ilsa Marrow)##
("relationship"<|>Ilsa Marrow<|>ilsa marrow<|>self<|>3)##
("entity"<|>Ilsa Marrow<|>person<|>Founder of the guild.)##
<|COMPLETE|>`,
			ents: []EntityRecord{ilsa}, dropped: 5, done: true,
		},
		{
			name: "strength variants",
			in: `("relationship"<|>A<|>B<|>d<|>7/10)##
("relationship"<|>A<|>C<|>d<|>strength: 6.5)##
("relationship"<|>A<|>D<|>d<|>high)##
("relationship"<|>A<|>E<|>d<|>120)##
("relationship"<|>A<|>F<|>d<|>0)##
("relationship"<|>A<|>G<|>founded in 1102)##
("relationship"<|>A<|>H<|>4)##
<|COMPLETE|>`,
			rels: []RelationshipRecord{
				{"A", "B", "d", 7}, {"A", "C", "d", 6.5}, {"A", "D", "d high", DefaultStrength},
				{"A", "E", "d", 10}, {"A", "F", "d", DefaultStrength}, {"A", "G", "founded in 1102", DefaultStrength},
				{"A", "H", "", 4},
			},
			done: true,
		},
		{
			name: "markdown emphasis and bullets on names",
			in:   `- ("entity"<|>**Ilsa Marrow**<|>*person*<|>Founder of the guild.)` + "\n<|COMPLETE|>",
			ents: []EntityRecord{ilsa}, done: true,
		},
		{
			name: "bare pipes as delimiters",
			in:   `("entity"|Ilsa Marrow|person|Founder of the guild.)` + "\n<|COMPLETE|>",
			ents: []EntityRecord{ilsa}, done: true,
		},
		{
			name: "JSON instead of tuples",
			in:   "```json\n{\"entities\":[{\"name\":\"Ilsa Marrow\",\"type\":\"Person\",\"description\":\"Founder of the guild.\"},{\"name\":\"\"}],\"relationships\":[{\"source\":\"Ilsa Marrow\",\"target\":\"Saltmere Guild\",\"description\":\"Ilsa Marrow founded the guild.\",\"strength\":9}]}\n```",
			ents: []EntityRecord{ilsa}, rels: []RelationshipRecord{founded}, dropped: 1, done: true,
		},
		{
			name:    "prose only counts as one dropped answer",
			in:      "I'm sorry, I can't find any entities here.",
			dropped: 1,
		},
		{
			name: "nothing found",
			in:   "<|COMPLETE|>", done: true,
		},
		{name: "empty", in: ""},
		{
			name: "unterminated reasoning",
			in:   "<think>Let me list (\"entity\"<|>Ilsa Marrow<|>person<|>x)",
		},
		{
			name: "text after the completion marker is ignored",
			in:   `("entity"<|>Ilsa Marrow<|>person<|>Founder of the guild.)<|COMPLETE|>("entity"<|>Ghost<|>person<|>x)`,
			ents: []EntityRecord{ilsa}, done: true,
		},
	}
	checkParse(t, tests)
}

func TestFormatRecordsRoundTrip(t *testing.T) {
	ents := []EntityRecord{
		{"Ilsa Marrow", "person", "Founder (1102) of the guild; said \"no\"."},
		{"C#", "technology", "A language ## with hashes <|> and delimiters."},
	}
	rels := []RelationshipRecord{{"Ilsa Marrow", "C#", "Used it) ## oddly.", 2.5}}
	got := ParseRecords(FormatRecords(ents, rels))
	want := ParseRecords(FormatRecords(got.Entities, got.Relationships))
	if !reflect.DeepEqual(got, want) || got.Dropped != 0 || len(got.Entities) != 2 || len(got.Relationships) != 1 {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, want)
	}
	if got.Entities[0] != ents[0] {
		t.Errorf("entity changed: %+v", got.Entities[0])
	}
}

// checkRecords asserts the invariants every ParseRecords result keeps.
func checkRecords(t *testing.T, r Records) {
	t.Helper()
	for _, e := range r.Entities {
		for _, f := range []string{e.Name, e.Type, e.Description} {
			if !utf8.ValidString(f) || strings.Contains(f, FieldDelimiter) || strings.ContainsAny(f, "\n\r") {
				t.Fatalf("bad entity field %q in %+v", f, e)
			}
		}
		if e.Name == "" {
			t.Fatalf("empty entity name: %+v", e)
		}
	}
	for _, rel := range r.Relationships {
		if rel.Source == "" || rel.Target == "" {
			t.Fatalf("empty endpoint: %+v", rel)
		}
		if math.IsNaN(rel.Strength) || rel.Strength <= 0 || rel.Strength > 10 {
			t.Fatalf("strength out of range: %+v", rel)
		}
		for _, f := range []string{rel.Source, rel.Target, rel.Description} {
			if !utf8.ValidString(f) || strings.Contains(f, FieldDelimiter) {
				t.Fatalf("bad relationship field %q", f)
			}
		}
	}
	if r.Dropped < 0 {
		t.Fatalf("negative dropped count")
	}
}

func FuzzParseRecords(f *testing.F) {
	for _, seed := range []string{
		"",
		"<|COMPLETE|>",
		`("entity"<|>Ilsa Marrow<|>person<|>Founder.)##("relationship"<|>Ilsa Marrow<|>Guild<|>founded<|>9)##<|COMPLETE|>`,
		`("entity"<|>A<|>person<|>desc (x)`,
		"```\n(\"entity\"<|>A<|>b<|>c)\n```",
		`"entity"<|>A<|>b<|>c` + "\n" + `"relationship"<|>A<|>B<|>c<|>high`,
		`("entity"|A|b|c)`,
		`{"entities":[{"name":"A","type":"b"}],"relationships":[{"source":"A","target":"B","strength":"7"}]}`,
		"<think>(\"entity\"<|>x<|>y<|>z)</think>(\"entity\"<|>A<|>b<|>c)",
		`("relationship"<|>A<|>B<|>d<|>1e309)##`,
		"(\"entity\"<|>\xff\xfe<|>b<|>c)##",
		"ENTITIES\nA | b\nRELATIONSHIPS\nA | B | 7\n| C | D |\n<|COMPLETE|>",
		"- A | b | (desc\n1. A | B\n---|---\nX |",
		`{"entities":["A | b", "", "|", "---"],"relationships":["A | B | 7", "x", "A | B"]}`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in string) {
		r := ParseRecords(in)
		checkRecords(t, r)
		// Whatever the parser keeps, it must read back identically once written out.
		again := ParseRecords(FormatRecords(r.Entities, r.Relationships))
		checkRecords(t, again)
		if again.Dropped != 0 || !reflect.DeepEqual(again.Entities, r.Entities) ||
			!reflect.DeepEqual(again.Relationships, r.Relationships) {
			t.Fatalf("round trip changed records:\n in %q\n got %+v\n again %+v", in, r, again)
		}
	})
}

func TestParseRecordsCountsUnreadableRecordsBetweenRecords(t *testing.T) {
	got := ParseRecords(`("entity"<|>A<|>person<|>a)##
("entity"|B|person|b)##
("entity"<|>C<|>person<|>c)##
<|COMPLETE|>`)
	if len(got.Entities) != 2 || got.Dropped != 1 {
		t.Errorf("got %+v, want 2 entities and 1 dropped", got)
	}
}
