// Package textutil holds the small text helpers that extraction, reports, layers and retrieval
// share: what counts as a sentence, a clipped string, one line of text, a model answer without
// its reasoning.
package textutil

import (
	"regexp"
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

// thinkRe matches the reasoning blocks some models (DeepSeek R1, Qwen 3…) put in their answer.
var thinkRe = regexp.MustCompile(`(?is)<(think|thinking|reasoning)>.*?</(think|thinking|reasoning)>`)

var (
	thinkOpenRe  = regexp.MustCompile(`(?i)<(think|thinking|reasoning)>`)
	thinkCloseRe = regexp.MustCompile(`(?i)</(think|thinking|reasoning)>`)
)

// OpenThinking returns the index in s of a reasoning block that is not closed (as thinkRe matches
// blocks: from the first opening tag to the first closing one after it), or of an opening tag
// that may be starting at its end, or -1. A stream of an answer holds back the text from there:
// StripThinking may still remove it.
func OpenThinking(s string) int {
	for pos := 0; ; {
		open := thinkOpenRe.FindStringIndex(s[pos:])
		if open == nil {
			break
		}
		end := thinkCloseRe.FindStringIndex(s[pos+open[1]:])
		if end == nil {
			return pos + open[0]
		}
		pos += open[1] + end[1]
	}
	// Only the last '<' can begin a tag cut short: a tag holds no other.
	if i := strings.LastIndexByte(s, '<'); i >= 0 {
		tail := strings.ToLower(s[i:])
		for _, tag := range []string{"<think>", "<thinking>", "<reasoning>"} {
			if len(tail) < len(tag) && strings.HasPrefix(tag, tail) {
				return i
			}
		}
	}
	return -1
}

// StripThinking removes reasoning blocks from a model answer. An unterminated block at the start
// (the answer was cut off while reasoning) removes everything. It lives here rather than with
// the answer parsers because the LLM client strips the answers it returns as well: whichever
// server a model runs behind, reasoning never reaches a parser, a cache entry or a follow-up
// message.
func StripThinking(s string) string {
	s = thinkRe.ReplaceAllString(s, "")
	t := strings.TrimSpace(s)
	lower := strings.ToLower(t)
	for _, open := range []string{"<think>", "<thinking>", "<reasoning>"} {
		if strings.HasPrefix(lower, open) {
			return ""
		}
	}
	return s
}
