package prompts

import (
	"strings"

	"github.com/stratarag/strata/internal/textutil"
)

// CleanSummary tidies a summarization answer: reasoning blocks, code fences, a leading label
// ("Merged description:") and surrounding quotes are removed.
func CleanSummary(answer string) string {
	s := strings.TrimSpace(textutil.StripThinking(answer))
	if body, ok := FencedBlock(s); ok && strings.HasPrefix(s, "```") {
		s = strings.TrimSpace(body)
	}
	if i := strings.IndexByte(s, '\n'); i > 0 && i < 60 && strings.HasSuffix(strings.TrimSpace(s[:i]), ":") {
		s = strings.TrimSpace(s[i+1:])
	}
	return CleanText(s)
}
