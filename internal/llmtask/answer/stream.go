package answer

import (
	"strings"
	"unicode"

	"github.com/stratarag/strata/internal/textutil"
	"github.com/stratarag/strata/prompts"
)

// streamFilter turns the model's raw text pieces into pieces of the final answer text, which is
// the model's text with reasoning blocks removed, trimmed, and with made-up citations removed.
//
// Rather than filter each piece, it runs the very functions that make the final text over the
// part of the raw text that more text can no longer change: all of it but an unclosed reasoning
// block (or a tag cut short), a bracket that may still become a citation, and trailing white
// space (the final text is trimmed, and an emptied citation takes the space before it). What that
// gives is the start of the final text, so the pieces never have to be taken back; its growth
// since the last piece is sent. Re-running over the whole text costs a few milliseconds for an
// answer of a few thousand tokens, and keeps one definition of the answer text.
type streamFilter struct {
	keep func(prompts.Citation) bool
	out  func(string)
	raw  strings.Builder
	sent string // the text out has been given, which is the start of the answer text
}

func newStreamFilter(keep func(prompts.Citation) bool, out func(string)) *streamFilter {
	return &streamFilter{keep: keep, out: out}
}

// write takes the next raw piece (llm.ChatRequest.OnDelta).
func (f *streamFilter) write(piece string) {
	f.raw.WriteString(piece)
	text := stableText(f.raw.String(), f.keep)
	rest, ok := strings.CutPrefix(text, f.sent)
	if !ok || rest == "" {
		// !ok: the raw text is not one answer (a retry's text follows the failed attempt's); the
		// pieces sent stay as they are and retrieval.Engine withdraws them once the answer is known.
		return
	}
	f.sent = text
	f.out(rest)
}

// retry forgets the raw text of an attempt that failed half-way (llm.ChatRequest.OnRetry). At
// temperature 0 the retry usually writes the same words again, so the pieces already sent stay
// the start of its text and nothing is taken back.
func (f *streamFilter) retry() { f.raw.Reset() }

// stableText is the start of the answer text that raw's continuations all share.
func stableText(raw string, keep func(prompts.Citation) bool) string {
	if i := textutil.OpenThinking(raw); i >= 0 {
		raw = raw[:i]
	}
	s := strings.TrimLeftFunc(textutil.StripThinking(raw), unicode.IsSpace)
	if i := prompts.OpenCitation(s); i >= 0 {
		s = s[:i]
	}
	s, _, _ = prompts.FilterCitations(s, keep)
	return strings.TrimRightFunc(s, unicode.IsSpace)
}
