package layers

import (
	"cmp"
	"context"
	"fmt"
	"strings"

	"github.com/stratarag/strata/internal/textutil"
)

// Extractive summarizes a cluster without a model: one summary entity named after its most
// connected members (their labels, so a layer-2 summary reads "Amazon, NBA, Tesla and 5 more",
// not a list of lists), typed by their most common type, described by the labels of its members
// and the first sentences of its most connected extracted entities. It gives the offline path a
// hierarchy of the same shape as the LLM's, with less insight.
type Extractive struct{}

// Limits of extractive summaries.
const (
	nameMembers        = 3
	labelMembers       = 10
	descriptionMembers = 5
)

// Summarize implements Summarizer. Members come most connected first.
func (Extractive) Summarize(_ context.Context, members []Member) ([]Summary, error) {
	if len(members) == 0 {
		return nil, nil
	}
	// Soft clusters can hold two summaries with the same label; a name repeats none.
	var labels []string
	seen := map[string]bool{}
	types := map[string]int{}
	for _, m := range members {
		if l := cmp.Or(m.Label, m.Name); !seen[l] {
			seen[l] = true
			labels = append(labels, l)
		}
		types[m.Type]++
	}
	name := strings.Join(labels[:min(nameMembers, len(labels))], ", ")
	if more := len(members) - min(nameMembers, len(labels)); more > 0 {
		name += fmt.Sprintf(" and %d more", more)
	}
	desc := fmt.Sprintf("A group of %d related entities: %s", len(members), strings.Join(labels[:min(labelMembers, len(labels))], ", "))
	if len(labels) > labelMembers {
		desc += ", …"
	}
	desc += "."
	n := 0
	for _, m := range members {
		if n == descriptionMembers {
			break
		}
		if m.Layer > 0 {
			continue // a summary's own description is a list of labels again
		}
		if s := textutil.FirstSentence(m.Description); s != "" {
			desc += " " + s
			n++
		}
	}
	return []Summary{{Name: name, Type: mostCommon(types), Description: desc}}, nil
}

func mostCommon(counts map[string]int) string {
	best, n := "other", 0
	for t, c := range counts {
		if c > n || (c == n && t < best) {
			best, n = t, c
		}
	}
	return best
}
