package retrieval_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/stratarag/strata/retrieval"
)

// streamer answers "the answer", sending pieces while it does.
type streamer struct {
	pieces   []string
	err      error
	streamed bool // AnswerStream was called, not Answer
}

func (s *streamer) Answer(context.Context, string, string) (retrieval.Answer, error) {
	return retrieval.Answer{Text: "the answer"}, s.err
}

func (s *streamer) AnswerStream(_ context.Context, _, _ string, onText func(string)) (retrieval.Answer, error) {
	s.streamed = true
	for _, p := range s.pieces {
		onText(p)
	}
	return retrieval.Answer{Text: "the answer"}, s.err
}

// TestQueryAnswerStream: the pieces a query streams end up, after the last reset, being exactly
// the answer, whether the answerer streams all of it, its start, something else, or nothing.
func TestQueryAnswerStream(t *testing.T) {
	engine := testEngine(t)
	r := retrieval.Delta{Reset: true}
	d := func(s string) retrieval.Delta { return retrieval.Delta{Text: s} }
	tests := []struct {
		name     string
		answerer retrieval.Answerer
		want     []retrieval.Delta
	}{
		{"streams all", &streamer{pieces: []string{"the ", "", "answer"}}, []retrieval.Delta{d("the "), d("answer")}},
		{"streams its start", &streamer{pieces: []string{"the", " an"}}, []retrieval.Delta{d("the"), d(" an"), d("swer")}},
		{"streams nothing", &streamer{}, []retrieval.Delta{d("the answer")}},
		{"streams another text", &streamer{pieces: []string{"the ans", "the answer"}},
			[]retrieval.Delta{d("the ans"), d("the answer"), r, d("the answer")}},
		{"cannot stream", &echoAnswerer{}, []retrieval.Delta{d("answer to Who rescued the crew?")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			engine.Answerer = tc.answerer
			defer func() { engine.Answerer = nil }()
			var got []retrieval.Delta
			ctx := retrieval.WithAnswerStream(context.Background(), func(d retrieval.Delta) { got = append(got, d) })
			res, err := engine.Query(ctx, "Who rescued the crew?", retrieval.DefaultOptions(retrieval.ModeNaive))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("deltas %+v, want %+v", got, tc.want)
			}
			var after strings.Builder
			for _, d := range got {
				if d.Reset {
					after.Reset()
				}
				after.WriteString(d.Text)
			}
			if res.Answer == nil || after.String() != *res.Answer {
				t.Errorf("deltas after the last reset make %q, answer %v", after.String(), res.Answer)
			}
		})
	}
}

// TestQueryAnswerStreamNot: without a stream in the context, or without an answer, nothing is
// streamed; a failed answer is not completed.
func TestQueryAnswerStreamNot(t *testing.T) {
	engine := testEngine(t)
	defer func() { engine.Answerer = nil }()
	s := &streamer{pieces: []string{"the"}}
	engine.Answerer = s
	if res, err := engine.Query(context.Background(), "Who rescued the crew?", retrieval.DefaultOptions(retrieval.ModeNaive)); err != nil || s.streamed || *res.Answer != "the answer" {
		t.Errorf("without a stream: streamed %v, %v", s.streamed, err)
	}

	var got []retrieval.Delta
	ctx := retrieval.WithAnswerStream(context.Background(), func(d retrieval.Delta) { got = append(got, d) })
	opt := retrieval.DefaultOptions(retrieval.ModeNaive)
	opt.ContextOnly = true
	if _, err := engine.Query(ctx, "Who rescued the crew?", opt); err != nil || len(got) != 0 {
		t.Errorf("context only: deltas %+v, %v", got, err)
	}

	s.err = errors.New("the model fell over")
	_, err := engine.Query(ctx, "Who rescued the crew?", retrieval.DefaultOptions(retrieval.ModeNaive))
	if !errors.Is(err, s.err) || !slices.Equal(got, []retrieval.Delta{{Text: "the"}}) {
		t.Errorf("failed answer: deltas %+v, %v", got, err)
	}
}
