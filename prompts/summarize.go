package prompts

import (
	"errors"
	"strings"

	"github.com/stratarag/strata/internal/textutil"
)

// DefaultSummaryWords is the word limit of a merged description when the caller gives none.
const DefaultSummaryWords = 200

// Summarize renders the prompt that merges the descriptions of one entity or relationship
// (name) into one of at most maxWords words.
func (s *Set) Summarize(name string, descriptions []string, maxWords int) (Prompt, error) {
	if len(descriptions) == 0 {
		return Prompt{}, errors.New("summarize prompt: no descriptions")
	}
	if maxWords <= 0 {
		maxWords = DefaultSummaryWords
	}
	var b strings.Builder
	for _, d := range descriptions {
		b.WriteString("- ")
		b.WriteString(strings.Join(strings.Fields(d), " "))
		b.WriteByte('\n')
	}
	return s.renderPair("summarize", struct {
		Name         string
		Descriptions fenced
		MaxWords     int
	}{cleanText(name), fence(DescriptionsLabel, b.String()), maxWords})
}

// CleanSummary tidies a summarization answer: reasoning blocks, code fences, a leading label
// ("Merged description:") and surrounding quotes are removed.
func CleanSummary(answer string) string {
	s := strings.TrimSpace(textutil.StripThinking(answer))
	if body, ok := fencedBlock(s); ok && strings.HasPrefix(s, "```") {
		s = strings.TrimSpace(body)
	}
	if i := strings.IndexByte(s, '\n'); i > 0 && i < 60 && strings.HasSuffix(strings.TrimSpace(s[:i]), ":") {
		s = strings.TrimSpace(s[i+1:])
	}
	return cleanText(s)
}
