package answer

import (
	"context"
	"strings"
	"testing"

	"github.com/stratarag/strata/internal/llm"
	"github.com/stratarag/strata/internal/textutil"
	"github.com/stratarag/strata/prompts"
)

// piecewise is a chat model whose answer arrives in pieces of a fixed size, as a streaming
// client delivers it; its response is what llm.Client makes of the whole text.
type piecewise struct {
	raw  string
	size int
}

func (p piecewise) Chat(_ context.Context, req llm.ChatRequest) (llm.ChatResponse, error) {
	for s := p.raw; s != ""; {
		n := min(p.size, len(s))
		req.OnDelta(s[:n])
		s = s[n:]
	}
	return llm.ChatResponse{Content: strings.TrimSpace(textutil.StripThinking(p.raw)), FinishReason: "stop"}, nil
}

// TestAnswerStream: whatever the size of the model's pieces, the text streamed is at every
// moment the start of the final answer, never shows reasoning or a made-up citation, and at the
// end is what the test says: the whole answer, or its start when the end may have been a
// citation or a reasoning block until the text ran out.
func TestAnswerStream(t *testing.T) {
	tests := []struct {
		name, raw string
		final     string
		sent      string // "" for final
		never     []string
	}{
		{"plain", "Ilsa Marrow founded the guild [doc:guild] in 1102.", "Ilsa Marrow founded the guild [doc:guild] in 1102.", "", nil},
		{"reasoning first", "<think>Who? Maybe [doc:zz].</think>\n\nIlsa Marrow founded it [doc:guild].", "Ilsa Marrow founded it [doc:guild].", "",
			[]string{"Who", "zz", "think"}},
		{"reasoning between, any case", "Ilsa Marrow <THINKING>check the year</Thinking>founded it.", "Ilsa Marrow founded it.", "",
			[]string{"check", "THINK"}},
		{"made-up citation", "It was Ilsa [doc:guild], say the annals [doc:annals].", "It was Ilsa [doc:guild], say the annals.", "",
			[]string{"annals ", "annals]", "doc:annals"}},
		{"made-up id among real ones", "Port Avel [doc:port; chunk:c9; chunk:c2] is a harbour.", "Port Avel [doc:port, chunk:c2] is a harbour.", "",
			[]string{"c9"}},
		{"made-up citation first", "[doc:annals] Ilsa founded it.", " Ilsa founded it.", "", []string{"annals"}},
		{"page citations", "The charter [doc:charter.pdf pp.3-4] and the annals [doc:annals p.2].", "The charter [doc:charter.pdf pp.3-4] and the annals.", "",
			[]string{"annals ", "annals]", "doc:annals", "p.2"}},
		{"brackets that are no citation", "See [1] and [the note] [Doc:x].", "See [1] and [the note] [Doc:x].", "", nil},
		{"open bracket at the end", "See [note", "See [note", "See", nil},
		{"reasoning never closed", "Ilsa founded it. <think>but was it", "Ilsa founded it. <think>but was it", "Ilsa founded it.", nil},
		{"all reasoning", "<think>nothing but thought", "", "", []string{"thought"}},
		{"space and tags at the edges", "  \n<reasoning>x</reasoning>  Ilsa.  ", "Ilsa.", "", nil},
		{"a less-than sign", "1 < 2 and <b>bold</b>", "1 < 2 and <b>bold</b>", "", nil},
	}
	for _, tc := range tests {
		for _, size := range []int{1, 2, 3, 7, 1 << 10} {
			var sent strings.Builder
			a, err := GenerateStream(context.Background(), piecewise{tc.raw, size}, "Who founded the guild?", contextText, Options{}, func(s string) {
				if s == "" {
					t.Errorf("%s, pieces of %d: an empty piece", tc.name, size)
				}
				sent.WriteString(s)
				for _, w := range tc.never {
					if strings.Contains(sent.String(), w) {
						t.Errorf("%s, pieces of %d: %q shown in %q", tc.name, size, w, sent.String())
					}
				}
			})
			if tc.final == "" {
				if err == nil {
					t.Errorf("%s: answer %q, want unreadable", tc.name, a.Text)
				}
			} else if err != nil || a.Text != tc.final {
				t.Fatalf("%s: answer %q, %v; want %q", tc.name, a.Text, err, tc.final)
			}
			want := tc.sent
			if want == "" {
				want = tc.final
			}
			if sent.String() != want {
				t.Errorf("%s, pieces of %d: streamed %q, want %q", tc.name, size, sent.String(), want)
			}
		}
	}
}

// A retried attempt that writes the same words again continues the stream without repeating or
// withdrawing anything.
func TestStreamFilterRetry(t *testing.T) {
	var out strings.Builder
	f := newStreamFilter(func(prompts.Citation) bool { return true }, func(s string) { out.WriteString(s) })
	f.write("The guild was ")
	f.write("found")
	f.retry()
	for _, p := range []string{"The guild ", "was founded ", "in 1102."} {
		f.write(p)
	}
	if got := out.String(); got != "The guild was founded in 1102." {
		t.Errorf("streamed %q", got)
	}
}
