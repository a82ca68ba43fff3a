package layers_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/llm"
	"github.com/stratarag/strata/internal/tokenizer"
	"github.com/stratarag/strata/pipeline/layers"
)

// cannedChat answers every request with one answer, or fails.
type cannedChat struct {
	answer string
	err    error
}

func (c cannedChat) Chat(context.Context, llm.ChatRequest) (llm.ChatResponse, error) {
	return llm.ChatResponse{Content: c.answer}, c.err
}

// TestLLMSummarizer: the model's summary entities are used; an unreadable answer gets the
// extractive summary instead; an API error fails; a cluster that says little is not sent.
func TestLLMSummarizer(t *testing.T) {
	ctx := context.Background()
	members := []layers.Member{
		{Entity: graph.Entity{ID: "ILSA MARROW", Name: "Ilsa Marrow", Type: "person", Description: "Founder of the Saltmere Guild."}, Connections: 2, Label: "Ilsa Marrow"},
		{Entity: graph.Entity{ID: "CORVIN HALE", Name: "Corvin Hale", Type: "person", Description: "Surveyor for the Saltmere Guild."}, Connections: 1, Label: "Corvin Hale"},
	}
	extractive, err := layers.Extractive{}.Summarize(ctx, members)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := tokenizer.New()
	if err != nil {
		t.Fatal(err)
	}
	errAPI := errors.New("status 503: overloaded")
	tests := []struct {
		name    string
		chat    cannedChat
		want    []layers.Summary
		wantErr error
	}{
		{"model summary", cannedChat{answer: `("entity"<|>Guild founders<|>theme<|>Who built the Saltmere Guild.)##` +
			`("relationship"<|>Ilsa Marrow<|>Guild founders<|>founded it<|>8)##<|COMPLETE|>`},
			[]layers.Summary{{Name: "Guild founders", Type: "theme", Description: "Who built the Saltmere Guild."}}, nil},
		{"unreadable answer falls back", cannedChat{answer: "<think>Let me see who"}, extractive, nil},
		{"answer without entities falls back", cannedChat{answer: `("relationship"<|>A<|>B<|>c<|>1)`}, extractive, nil},
		{"API error fails", cannedChat{err: errAPI}, nil, errAPI},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := (&layers.LLM{Chat: tc.chat, Tokenizer: tok, MinInputTokens: -1}).Summarize(ctx, members)
			if !errors.Is(err, tc.wantErr) || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v, %v; want %+v, %v", got, err, tc.want, tc.wantErr)
			}
		})
	}
	// Under the default threshold, two members of a line each are summarized without a call.
	got, err := (&layers.LLM{Chat: cannedChat{err: errAPI}, Tokenizer: tok}).Summarize(ctx, members)
	if err != nil || !reflect.DeepEqual(got, extractive) {
		t.Errorf("small cluster: got %+v, %v; want the extractive summary %+v", got, err, extractive)
	}
}

// TestLLMRelations: the model's description is used; an unreadable answer gets the extractive
// one; an API error fails; evidence the extractive description holds whole is not sent.
func TestLLMRelations(t *testing.T) {
	ctx := context.Background()
	short := layers.SummaryRelation{
		Source:   layers.Member{Entity: graph.Entity{ID: "GUILD @L1", Name: "Guild", Description: "The guild."}},
		Target:   layers.Member{Entity: graph.Entity{ID: "HARBOUR @L1", Name: "Harbour", Description: "The harbour."}},
		Count:    3,
		Evidence: []string{"Ilsa Marrow taxed the harbour.", "Corvin Hale surveyed it."},
	}
	extractive, err := layers.ExtractiveRelations{}.DescribeRelation(ctx, short)
	if err != nil || extractive != "3 relations join their members. Ilsa Marrow taxed the harbour. Corvin Hale surveyed it." {
		t.Fatalf("extractive description %q, %v", extractive, err)
	}
	long := short
	long.Evidence = []string{strings.Repeat("The guild taxed every ship in the harbour. ", 30), strings.Repeat("Corvin Hale surveyed the quays. ", 30)}
	longExtractive, err := layers.ExtractiveRelations{}.DescribeRelation(ctx, long)
	if err != nil || !strings.HasSuffix(longExtractive, " …") {
		t.Fatalf("extractive description of long evidence %q, %v: want it cut", longExtractive, err)
	}
	errAPI := errors.New("status 503: overloaded")
	tests := []struct {
		name    string
		r       layers.SummaryRelation
		chat    cannedChat
		want    string
		wantErr error
	}{
		{"model description", long, cannedChat{answer: "The guild taxes the harbour."}, "The guild taxes the harbour.", nil},
		{"unreadable answer falls back", long, cannedChat{answer: "<think>Hmm"}, longExtractive, nil},
		{"API error fails", long, cannedChat{err: errAPI}, "", errAPI},
		{"short evidence needs no call", short, cannedChat{err: errAPI}, extractive, nil},
		{"no evidence needs no call", layers.SummaryRelation{Source: short.Source, Target: short.Target, Count: 2}, cannedChat{err: errAPI}, "2 relations join their members.", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := (&layers.LLMRelations{Chat: tc.chat}).DescribeRelation(ctx, tc.r)
			if !errors.Is(err, tc.wantErr) || got != tc.want {
				t.Errorf("got %q, %v; want %q, %v", got, err, tc.want, tc.wantErr)
			}
		})
	}
}
