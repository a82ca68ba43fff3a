package layers

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/textutil"
)

// Extractive summarizes a cluster without a model: one summary entity named after its most
// connected members, typed by their most common type, described by their first sentences. It
// gives the offline path a hierarchy of the same shape as the LLM's, with less insight.
type Extractive struct{}

// Limits of extractive summaries.
const (
	nameMembers        = 3
	descriptionMembers = 5
)

// Summarize implements Summarizer.
func (Extractive) Summarize(_ context.Context, members []graph.Entity) ([]Summary, error) {
	ms := slices.Clone(members)
	slices.SortFunc(ms, func(a, b graph.Entity) int {
		return cmp.Or(cmp.Compare(b.Degree, a.Degree), cmp.Compare(a.ID, b.ID))
	})
	var names []string
	types := map[string]int{}
	for i, m := range ms {
		if i < nameMembers {
			names = append(names, m.Name)
		}
		types[m.Type]++
	}
	name := strings.Join(names, ", ")
	if len(ms) > nameMembers {
		name += fmt.Sprintf(" and %d more", len(ms)-nameMembers)
	}
	var desc []string
	for _, m := range ms[:min(descriptionMembers, len(ms))] {
		if s := textutil.FirstSentence(m.Description); s != "" {
			desc = append(desc, s)
		}
	}
	return []Summary{{
		Name:        name,
		Type:        mostCommon(types),
		Description: fmt.Sprintf("A group of %d related entities. ", len(ms)) + strings.Join(desc, " "),
	}}, nil
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
