package prompts

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestExtractJSON(t *testing.T) {
	tests := []struct {
		name, in, want string
		err            bool
	}{
		{"plain", `{"a":1}`, `{"a":1}`, false},
		{"prose around", `Sure! Here it is: {"a":[1,2]} Let me know.`, `{"a":[1,2]}`, false},
		{"fenced", "```json\n{\"a\": \"b\"}\n```\nThe end {x}", `{"a": "b"}`, false},
		{"unclosed fence", "```json\n{\"a\": \"b\"}", `{"a": "b"}`, false},
		{"braces in prose first", `Use {title} and {summary}: {"title":"T"}`, `{"title":"T"}`, false},
		{"braces inside strings", `{"a":"}{]["}`, `{"a":"}{]["}`, false},
		{"escaped quotes", `{"a":"say \"hi\" }"}`, `{"a":"say \"hi\" }"}`, false},
		{"trailing commas", `{"a":[1,2,],"b":3,}`, `{"a":[1,2],"b":3}`, false},
		{"truncated in string value", `{"title":"T","summary":"The guild was fou`, `{"title":"T","summary":"The guild was fou"}`, false},
		{"truncated after key", `{"title":"T","summary"`, `{"title":"T"}`, false},
		{"truncated after colon", `{"title":"T","summary": `, `{"title":"T"}`, false},
		{"truncated in key", `{"title":"T","summ`, `{"title":"T"}`, false},
		{"truncated in nested", `{"findings":[{"summary":"a","explanation":"b"},{"summary":"c`, `{"findings":[{"summary":"a","explanation":"b"},{"summary":"c"}]}`, false},
		{"truncated in number", `{"a":1,"rating":7`, `{"a":1}`, false},
		{"truncated after comma", `[1,2,`, `[1,2]`, false},
		{"truncated escape", `{"a":"x\`, `{"a":"x"}`, false},
		{"truncated unicode escape", `{"a":"x\u00`, `{"a":"x"}`, false},
		{"array", `[{"a":1}]`, `[{"a":1}]`, false},
		{"reasoning first", `<think>{"wrong":true}</think>{"right":true}`, `{"right":true}`, false},
		{"nothing", "no json here", "", true},
		{"empty", "", "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ExtractJSON(tc.in)
			if tc.err {
				if err == nil {
					t.Fatalf("ExtractJSON(%q) = %q, want error", tc.in, got)
				}
				return
			}
			if err != nil {
				t.Fatalf("ExtractJSON(%q): %v", tc.in, err)
			}
			if got != tc.want {
				t.Errorf("ExtractJSON(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestParseReport(t *testing.T) {
	full := Report{
		Title: "Saltmere chart makers", Summary: "The guild and its founder.", Rating: 7.5,
		RatingExplanation: "Central to trade.",
		Findings:          []Finding{{"Founded in 1102", "Ilsa Marrow founded it."}, {"Neutral", ""}},
	}
	tests := []struct {
		name    string
		in      string
		want    Report
		dropped int
		err     bool
	}{
		{"canonical", `{"title":"Saltmere chart makers","summary":"The guild and its founder.","rating":7.5,"rating_explanation":"Central to trade.","findings":[{"summary":"Founded in 1102","explanation":"Ilsa Marrow founded it."},{"summary":"Neutral"}]}`, full, 0, false},
		{"fenced, string rating, string finding, junk finding", "Report:\n```json\n{\"title\":\"Saltmere chart makers\",\"summary\":\"The guild and its founder.\",\"rating\":\"7.5\",\"rating_explanation\":\"Central to trade.\",\"findings\":[{\"summary\":\"Founded in 1102\",\"explanation\":\"Ilsa Marrow founded it.\"},\"Neutral\",{},42]}\n```", full, 2, false},
		{"truncated", `{"title":"T","summary":"S","rating":11,"findings":[{"summary":"a","explanation":"cut her`,
			Report{Title: "T", Summary: "S", Rating: 10, Findings: []Finding{{"a", "cut her"}}}, 0, false},
		{"missing fields", `{"title":"T"}`, Report{Title: "T"}, 0, false},
		{"empty object", `{}`, Report{}, 0, true},
		{"not JSON", `The community is about ships.`, Report{}, 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, dropped, err := ParseReport(tc.in)
			if (err != nil) != tc.err {
				t.Fatalf("err = %v, want error %v", err, tc.err)
			}
			if !reflect.DeepEqual(got, tc.want) || dropped != tc.dropped {
				t.Errorf("got %+v (dropped %d)\nwant %+v (dropped %d)", got, dropped, tc.want, tc.dropped)
			}
		})
	}
}

func TestParsePoints(t *testing.T) {
	got, dropped, err := ParsePoints("```json\n{\"points\":[{\"description\":\"a [report:0-1]\",\"score\":80},{\"description\":\"\",\"score\":5},{\"description\":\"b\",\"score\":\"150\"},{\"description\":\"c\"}]}\n```")
	if err != nil {
		t.Fatal(err)
	}
	want := []Point{{"a [report:0-1]", 80}, {"b", 100}, {"c", 0}}
	if !reflect.DeepEqual(got, want) || dropped != 1 {
		t.Errorf("got %+v dropped %d", got, dropped)
	}
	if got, _, err := ParsePoints(`[{"description":"x","score":1}]`); err != nil || len(got) != 1 {
		t.Errorf("bare array: %v %v", got, err)
	}
	if _, _, err := ParsePoints("none"); err == nil {
		t.Error("no JSON: want error")
	}
}

func FuzzParseJSON(f *testing.F) {
	for _, seed := range []string{
		`{"title":"T","summary":"S","rating":7,"rating_explanation":"E","findings":[{"summary":"a","explanation":"b"}]}`,
		"```json\n{\"a\":[1,2,]}\n```",
		`{"a":"x\u00`,
		`{"findings":[{"summary":"a","explanation":"b"},{"summary":"c`,
		`prose {not json} [1,{"a":`,
		`<think>{</think>[true, false, null, -1.5e3]`,
		`{"a":"\\"}`,
		"{\"a\":\"\xff\"}",
		`[[[[[[[[[[`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in string) {
		js, err := ExtractJSON(in)
		if err != nil {
			return
		}
		if !json.Valid([]byte(js)) {
			t.Fatalf("ExtractJSON(%q) = %q: not valid JSON", in, js)
		}
		if c := js[0]; c != '{' && c != '[' {
			t.Fatalf("ExtractJSON(%q) = %q: not an object or array", in, js)
		}
		// A valid object or array given as is comes back unchanged.
		trimmed := strings.TrimSpace(in)
		if json.Valid([]byte(trimmed)) && len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[') &&
			!strings.Contains(trimmed, "```") && !strings.Contains(strings.ToLower(trimmed), "<think") &&
			!strings.Contains(strings.ToLower(trimmed), "<reasoning") {
			if js != trimmed {
				t.Fatalf("valid JSON %q came back as %q", trimmed, js)
			}
		}
		_, _, _ = ParseReport(in)
		_, _, _ = ParsePoints(in)
	})
}
