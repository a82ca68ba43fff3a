package prompts

import (
	"errors"
	"strings"
)

// DefaultMetaTypes returns the summary entity types HiIndex asks for when the caller gives none.
func DefaultMetaTypes() []string {
	return []string{"concept", "theme", "group", "event", "field", "place", "organization"}
}

// SummaryEntities renders the HiIndex prompt that abstracts a cluster of entities into summary
// entities of the given types. clusterText lists the members (name, type, description). The
// answer is in the tuple format: entity records for the summaries, relationship records from
// each member to its summary; read it with ParseRecords.
func (s *Set) SummaryEntities(clusterText string, types []string) (Prompt, error) {
	return s.summaryEntities(clusterText, types, false)
}

// SummaryEntitiesJSON is SummaryEntities asking for the records as one JSON object, which
// ExtractionSchema(types, true, true) describes, for servers that enforce a schema.
func (s *Set) SummaryEntitiesJSON(clusterText string, types []string) (Prompt, error) {
	return s.summaryEntities(clusterText, types, true)
}

func (s *Set) summaryEntities(clusterText string, types []string, asJSON bool) (Prompt, error) {
	if strings.TrimSpace(clusterText) == "" {
		return Prompt{}, errors.New("summary entities prompt: empty cluster")
	}
	if len(types) == 0 {
		types = DefaultMetaTypes()
	}
	return s.renderPair("summary_entities", struct {
		Cluster                     fenced
		Types                       []string
		WantEntities, WantRelations bool
		JSON                        bool
	}{fence(ClusterLabel, clusterText), types, true, true, asJSON})
}
