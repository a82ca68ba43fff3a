package prompts

import (
	"regexp"
	"strings"
)

// Data fences. Untrusted text (document passages, descriptions, retrieved context) sits between a
// begin and an end line, and every template tells the model that what is inside is data. Each
// task package exports its label so tools (the fake server, tests) can find the data again.

// BeginFence returns the marker lines around data labeled label.
func BeginFence(label string) string { return "-----BEGIN " + label + "-----" }

// EndFence returns the line that closes data labeled label.
func EndFence(label string) string { return "-----END " + label + "-----" }

// fenceLike matches anything that could be mistaken for a fence line, so that text cannot close
// its own fence and smuggle instructions outside it.
var fenceLike = regexp.MustCompile(`-{3,}\s*(?i:BEGIN|END)\s+[A-Z ]+-{3,}`)

// Fenced is what templates receive for a piece of untrusted text.
type Fenced struct {
	Begin, End, Text string
}

// Fence neutralizes fence-like lines in text and wraps it for a template.
func Fence(label, text string) Fenced {
	clean := fenceLike.ReplaceAllStringFunc(text, func(m string) string {
		return strings.ReplaceAll(m, "-", "=")
	})
	return Fenced{Begin: BeginFence(label), End: EndFence(label), Text: strings.TrimSpace(clean)}
}

// Unfence returns the text between the first begin and end fence lines labeled label in s, and
// whether both were found.
func Unfence(s, label string) (string, bool) {
	b, e := BeginFence(label), EndFence(label)
	i := strings.Index(s, b)
	if i < 0 {
		return "", false
	}
	rest := s[i+len(b):]
	j := strings.Index(rest, e)
	if j < 0 {
		return "", false
	}
	return strings.TrimSpace(rest[:j]), true
}

// Task titles: the first line of every system prompt is "# Task: <title>". They give the model a
// clear frame, and let the fake server (internal/llm/fakeopenai) tell prompts apart; each task
// package exports its own.
var taskLine = regexp.MustCompile(`(?m)^#\s*Task:\s*(.+?)\s*$`)

// TaskOf returns the task title of a system prompt, or "" when it has none.
func TaskOf(system string) string {
	m := taskLine.FindStringSubmatch(system)
	if m == nil {
		return ""
	}
	return m[1]
}
