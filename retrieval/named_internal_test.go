package retrieval

import (
	"maps"
	"slices"
	"testing"

	"github.com/stratarag/strata/internal/graph"
)

func TestWordsOf(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"Kiss and Tell", []string{"kiss", "and", "tell"}},
		{"Saltmere Cartographers’ Guild!", []string{"saltmere", "cartographers", "guild"}},
		{"  2014 S/S ", []string{"2014", "s", "s"}},
		{"Ærøskøbing, ΣΊΣΥΦΟΣ", []string{"ærøskøbing", "σίσυφοσ"}},
	} {
		if got := wordsOf(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("wordsOf(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestPhraseMatcher(t *testing.T) {
	for _, tc := range []struct {
		phrase, text string
		want         bool
	}{
		{"kiss and tell", "the 1945 film Kiss and Tell starred", true},
		{"kiss and tell", "a Kiss, and Tell!", true}, // case and punctuation aside
		{"kiss and tell", "kiss and kiss and tell", true},
		{"kiss and tell", "kiss and telling", false},
		{"ash", "the Ashfever plague", false},
	} {
		m := phraseMatcher{words: wordsOf(tc.phrase)}
		eachWord(tc.text, nil, m.next)
		if m.found != tc.want {
			t.Errorf("%q in %q: %v, want %v", tc.phrase, tc.text, m.found, tc.want)
		}
	}
}

func TestNamedDocuments(t *testing.T) {
	docs := []graph.Document{
		{ID: "kiss", Title: "Kiss and Tell (1945 film)"},
		{ID: "temple", Title: "Shirley Temple"},
		{ID: "sequel", Title: "A Kiss for Corliss"},
		{ID: "news", Title: "Studio announces a sequel to Kiss and Tell"}, // a headline names no subject
		{ID: "it", Title: "It"},
		{ID: "ash", Title: "Ash"},
	}
	chunk := func(doc, text string) graph.Chunk { return graph.Chunk{ID: doc + "-0", DocumentID: doc, Text: text} }
	for _, tc := range []struct {
		name     string
		question string
		lexical  []graph.Chunk
		want     map[string]float64
	}{
		{
			name:     "only the document about it names it",
			question: "What position was held by the woman who portrayed Corliss Archer in the film Kiss and Tell?",
			lexical:  []graph.Chunk{chunk("kiss", "Kiss and Tell is a 1945 film."), chunk("temple", "Shirley Temple Black was a diplomat.")},
			want:     map[string]float64{"kiss": namedWeight},
		},
		{
			name:     "a name other candidates repeat counts less",
			question: "What position was held by the woman who portrayed Corliss Archer in the film Kiss and Tell?",
			lexical: []graph.Chunk{
				chunk("kiss", "Kiss and Tell is a 1945 film."),
				chunk("sequel", "It is a sequel to the 1945 film Kiss and Tell."),
				chunk("news", "Nothing here."), // its title names it
			},
			want: map[string]float64{"kiss": namedWeight / 3},
		},
		{
			name:     "whole words only, case and punctuation aside",
			question: "Which ship brought the ASHFEVER plague, and what did SHIRLEY-TEMPLE say?",
			lexical:  []graph.Chunk{chunk("ash", "Ash is a tree.")},
			want:     map[string]float64{"temple": namedWeight},
		},
		{
			name:     "names made of function words are left out",
			question: "What is it that the question asks?",
			want:     nil,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := namedDocuments(tc.question, docs, tc.lexical)
			if !maps.Equal(got, tc.want) {
				t.Errorf("namedDocuments = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestFuseDocumentsNamed: a named document's score adds to its fused score, and a named
// document no channel found is not brought in.
func TestFuseDocumentsNamed(t *testing.T) {
	c := func(doc string) graph.Chunk { return graph.Chunk{ID: doc + "-0", DocumentID: doc} }
	channels := []channel{{lexicalWeight, []graph.Chunk{c("a"), c("b"), c("c")}}}
	for _, tc := range []struct {
		name  string
		named map[string]float64
		want  []string
	}{
		{"no names", nil, []string{"a", "b", "c"}},
		{"the third named", map[string]float64{"c": namedWeight}, []string{"c", "a", "b"}},
		{"a document no channel found", map[string]float64{"z": namedWeight}, []string{"a", "b", "c"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ranked, _ := fuseDocuments(channels, tc.named, nil, 10)
			var got []string
			for _, ch := range ranked {
				got = append(got, ch.DocumentID)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("documents %v, want %v", got, tc.want)
			}
		})
	}
}

func TestMetadataDocuments(t *testing.T) {
	docs := []graph.Document{
		{ID: "fortune-1", Metadata: `{"source": "Fortune", "published_at": "2023-10-04"}`},
		{ID: "tc-1", Metadata: `{"source": "TechCrunch", "author": "Kyle Wiggers"}`},
		{ID: "tc-2", Metadata: `{"source": "TechCrunch"}`},
		{ID: "verge-1", Metadata: `{"source": "The Verge"}`},
		{ID: "plain", Metadata: `{}`},
		{ID: "year", Metadata: `{"year": 1130, "place": "Vell"}`},
		{ID: "long", Metadata: `{"note": "one two three four five six seven eight nine"}`},
		{ID: "it", Metadata: `{"source": "It"}`},
	}
	for _, tc := range []struct {
		name, question string
		want           map[string]float64
	}{
		{"a value many candidates carry counts less", "Who, as reported by both Fortune and TechCrunch, was tried?",
			map[string]float64{"fortune-1": metadataWeight, "tc-1": metadataWeight / 2, "tc-2": metadataWeight / 2}},
		{"values add up", "What did Kyle Wiggers write in TechCrunch?",
			map[string]float64{"tc-1": metadataWeight/2 + metadataWeight, "tc-2": metadataWeight / 2}},
		{"whole phrases, case and punctuation aside", "What did THE VERGE say? And the verge-side shop?",
			map[string]float64{"verge-1": metadataWeight}},
		{"a part of a value names nothing", "What did Verge report?", nil},
		{"numbers, long values and function words are left out", "What happened in 1130 on one two three four five six seven eight nine, and was it Vell?",
			map[string]float64{"year": metadataWeight}},
		{"nothing named", "Who founded the guild?", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := metadataDocuments(tc.question, docs)
			if len(got) != len(tc.want) {
				t.Fatalf("metadataDocuments = %v, want %v", got, tc.want)
			}
			for id, w := range tc.want {
				if d := got[id] - w; d > 1e-12 || d < -1e-12 {
					t.Errorf("metadataDocuments = %v, want %v", got, tc.want)
				}
			}
		})
	}
}
