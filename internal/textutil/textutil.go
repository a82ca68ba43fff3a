// Package textutil holds the small text helpers that extraction, reports, layers and retrieval
// share: what counts as a sentence, a clipped string, one line of text.
package textutil

import (
	"strings"
	"unicode/utf8"
)

// FirstSentence returns the first line of s up to its first sentence end (., ! or ? followed by
// a space), trimmed. A text without one is returned whole.
func FirstSentence(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	for i := 0; i+1 < len(s); i++ {
		if (s[i] == '.' || s[i] == '!' || s[i] == '?') && s[i+1] == ' ' {
			return s[:i+1]
		}
	}
	return s
}

// Clip shortens s to maxRunes runes, marking the cut with an ellipsis.
func Clip(s string, maxRunes int) string {
	if utf8.RuneCountInString(s) <= maxRunes {
		return s
	}
	return strings.TrimSpace(string([]rune(s)[:maxRunes])) + "…"
}

// OneLine collapses all white space, newlines included, to single spaces.
func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
