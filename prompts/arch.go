package prompts

import (
	"embed"
	"errors"
	"fmt"
	"strings"

	"github.com/stratarag/strata/internal/textutil"
)

// archFS holds the prompt of the attributed-community hierarchy. It is kept out of
// templates/, whose digest (Set.Version) names the extractor a store records: a new index
// option's prompt does not change what extraction does, so it must not make existing stores
// refuse their extractor.
//
//go:embed arch/*.tmpl
var archFS embed.FS

// MembersLabel fences the members of an attributed community.
const MembersLabel = "MEMBERS"

// TaskArchSummary is the task title of the attributed-community summary prompt.
const TaskArchSummary = "Attributed community summary"

// ArchSummaryWords is the word limit of a community summary.
const ArchSummaryWords = 80

// ArchSummary renders the prompt that titles and summarizes one attributed community of the
// given layer from its members' lines (membersText, one member per line) and their count.
func (s *Set) ArchSummary(layer, count int, membersText string) (Prompt, error) {
	if strings.TrimSpace(membersText) == "" {
		return Prompt{}, errors.New("attributed community summary prompt: no members")
	}
	return s.renderPair("arch_summary", struct {
		Layer, Count, MaxWords int
		Members                fenced
	}{layer, count, ArchSummaryWords, fence(MembersLabel, membersText)})
}

// ParseArchSummary reads a "TITLE: …" and a "SUMMARY: …" line (any case, reasoning blocks and
// code fences removed; a summary may run over several lines). An answer without a title or
// without a summary is an error; the other one may then still be read, for a caller that salvages.
func ParseArchSummary(answer string) (title, summary string, err error) {
	s := strings.TrimSpace(textutil.StripThinking(answer))
	if body, ok := fencedBlock(s); ok && strings.HasPrefix(s, "```") {
		s = body
	}
	var sum []string
	inSummary := false
	for _, line := range strings.Split(s, "\n") {
		t := strings.TrimSpace(strings.Trim(strings.TrimSpace(line), "*#"))
		upper := strings.ToUpper(t)
		switch {
		case strings.HasPrefix(upper, "TITLE:"):
			title, inSummary = cleanText(strings.Trim(strings.TrimSpace(t[len("TITLE:"):]), `"*`)), false
		case strings.HasPrefix(upper, "SUMMARY:"):
			sum, inSummary = []string{strings.Trim(strings.TrimSpace(t[len("SUMMARY:"):]), `*`)}, true
		case inSummary && t != "":
			sum = append(sum, t)
		}
	}
	summary = cleanText(strings.Join(strings.Fields(strings.Join(sum, " ")), " "))
	switch {
	case title == "" && summary == "":
		return "", "", fmt.Errorf("no TITLE: or SUMMARY: line in the answer")
	case title == "":
		return "", summary, fmt.Errorf("no TITLE: line in the answer")
	case summary == "":
		return title, "", fmt.Errorf("no SUMMARY: line in the answer")
	}
	return title, summary, nil
}
