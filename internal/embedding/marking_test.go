package embedding

import (
	"context"
	"testing"
)

func TestDefaultMarking(t *testing.T) {
	e5 := Marking{QueryPrefix: "query: ", PassagePrefix: "passage: "}
	tests := []struct {
		model string
		want  Marking
	}{
		{"multilingual-e5-small-q4", e5},
		{"intfloat/e5-base-v2", e5},
		{"e5-large", e5},
		{"BAAI/bge-small-en-v1.5", Marking{QueryPrefix: bgeQueryInstruction}},
		{"bge-m3", Marking{}},
		{"bge-large-zh-v1.5", Marking{}},
		{"nomic-embed-text", Marking{QueryPrefix: "search_query: ", PassagePrefix: "search_document: "}},
		{"thenlper/gte-small", Marking{}},
		{"text-embedding-3-small", Marking{}},
		{"se5-thing", Marking{}},
	}
	for _, tc := range tests {
		if got := DefaultMarking(tc.model); got != tc.want {
			t.Errorf("DefaultMarking(%q) = %+v, want %+v", tc.model, got, tc.want)
		}
	}
}

func TestParseInputType(t *testing.T) {
	tests := []struct {
		in         string
		q, p       string
		wantErrors bool
	}{
		{"query,passage", "query", "passage", false},
		{" search_query , search_document ", "search_query", "search_document", false},
		{"none", "", "", false},
		{"query", "", "", true},
		{",passage", "", "", true},
		{"", "", "", true},
	}
	for _, tc := range tests {
		q, p, err := ParseInputType(tc.in)
		if (err != nil) != tc.wantErrors || q != tc.q || p != tc.p {
			t.Errorf("ParseInputType(%q) = %q, %q, %v", tc.in, q, p, err)
		}
	}
}

func TestMarkingString(t *testing.T) {
	tests := []struct {
		m    Marking
		want string
	}{
		{Marking{}, "none"},
		{Marking{QueryPrefix: "query: ", PassagePrefix: "passage: "}, `prefix="query: "|"passage: "`},
		{Marking{QueryInputType: "query", PassageInputType: "passage"}, "input_type=query|passage"},
	}
	for _, tc := range tests {
		if got := tc.m.String(); got != tc.want {
			t.Errorf("%+v.String() = %q, want %q", tc.m, got, tc.want)
		}
	}
}

// queryCounter tells which of its methods was called.
type queryCounter struct {
	*Offline
	queries int
}

func (q *queryCounter) EmbedQuery(ctx context.Context, texts []string) ([][]float32, error) {
	q.queries++
	return q.Embed(ctx, texts)
}

func TestEmbedQueryAndWeight(t *testing.T) {
	ctx := context.Background()
	qc := &queryCounter{Offline: NewOffline(8)}
	w := WithPassageWeight(qc, 0.5)
	if _, err := EmbedQuery(ctx, w, []string{"x"}); err != nil || qc.queries != 1 {
		t.Errorf("EmbedQuery through the weight: %d query calls, %v", qc.queries, err)
	}
	if PassageWeight(w) != 0.5 || PassageWeight(qc) != 0 || PassageWeight(WithPassageWeight(NewOffline(8), 1)) != 1 {
		t.Error("passage weights wrong")
	}
	if _, err := EmbedQuery(ctx, NewOffline(8), []string{"x"}); err != nil {
		t.Error(err)
	}
}
