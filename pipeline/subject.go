package pipeline

import (
	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/pipeline/extract"
	"github.com/stratarag/strata/pipeline/resolve"
)

// withSubject makes every chunk of a document mention its subject, when some chunk of it
// names the subject: a document is about its subject throughout, even where its text says "he"
// or "the treaty". A subject the text never names is left out rather than added as an entity
// with nothing said about it.
func withSubject(results []resolve.ChunkResult, subject string) []resolve.ChunkResult {
	id := graph.NormalizeID(subject)
	if id == "" || !namesEntity(results, id) {
		return results
	}
	out := make([]resolve.ChunkResult, len(results))
	for i, r := range results {
		r.Result.Entities = append(r.Result.Entities[:len(r.Result.Entities):len(r.Result.Entities)], extract.Entity{Name: subject})
		out[i] = r
	}
	return out
}

// namesEntity reports whether an extraction result names the entity id.
func namesEntity(results []resolve.ChunkResult, id string) bool {
	for _, r := range results {
		for _, e := range r.Result.Entities {
			if graph.NormalizeID(e.Name) == id {
				return true
			}
		}
		for _, rel := range r.Result.Relations {
			if graph.NormalizeID(rel.Source) == id || graph.NormalizeID(rel.Target) == id {
				return true
			}
		}
	}
	return false
}
