package fakeopenai

import (
	"regexp"
	"strings"

	"github.com/stratarag/strata/prompts"
)

// What the fake reads in a summary relation request, as a model would: the task title and the
// data fence of internal/llmtask/summaryrelation. That package calls internal/llm, whose tests
// use this one, so it cannot be imported here; TestTaskNames checks the copies.
const (
	summaryRelationTask  = "Summary relation"
	summaryRelationLabel = "RELATIONS"
)

var (
	firstRe  = regexp.MustCompile(`(?m)^First:\s*(.*)$`)
	secondRe = regexp.MustCompile(`(?m)^Second:\s*(.*)$`)
)

// summaryRelationAnswer describes the relation between two summaries as a model would, from
// what the prompt gives: both names and the first of the sampled relationships.
func summaryRelationAnswer(user string) string {
	name := func(re *regexp.Regexp) string {
		if m := re.FindStringSubmatch(user); m != nil {
			return strings.TrimSpace(m[1])
		}
		return "?"
	}
	out := name(firstRe) + " is linked to " + name(secondRe) + "."
	data, _ := prompts.Unfence(user, summaryRelationLabel)
	for _, line := range strings.Split(data, "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "- "); ok {
			if ss := sentences(rest); len(ss) > 0 {
				return out + " For instance: " + ss[0].text
			}
			return out + " For instance: " + rest
		}
	}
	return out
}
