package prompts

import (
	"errors"
	"fmt"
	"strings"
)

// TaskSummaryRelation is the task title of the summary relation prompt.
const TaskSummaryRelation = "Summary relation"

// RelationLabel fences the data of the summary relation prompt.
const RelationLabel = "RELATIONS"

// DefaultRelationWords is the word limit of a summary relation description.
const DefaultRelationWords = 60

// SummaryRelation renders the prompt that describes the relation between two summary entities
// of the hierarchical index from their descriptions and a sample of the relationships between
// their members (LeanRAG's aggregation). count is how many relationships join the two groups.
func (s *Set) SummaryRelation(source, sourceDesc, target, targetDesc string, count int, relations []string, maxWords int) (Prompt, error) {
	if len(relations) == 0 {
		return Prompt{}, errors.New("summary relation prompt: no relationships")
	}
	if maxWords <= 0 {
		maxWords = DefaultRelationWords
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s\n%s: %s\n\n%d relationships join their members; the strongest:\n",
		cleanText(source), strings.Join(strings.Fields(sourceDesc), " "), cleanText(target), strings.Join(strings.Fields(targetDesc), " "), count)
	for _, r := range relations {
		b.WriteString("- ")
		b.WriteString(strings.Join(strings.Fields(r), " "))
		b.WriteByte('\n')
	}
	return s.renderPair("summary_relation", struct {
		Source, Target string
		Data           fenced
		MaxWords       int
	}{cleanText(source), cleanText(target), fence(RelationLabel, b.String()), maxWords})
}
