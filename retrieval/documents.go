package retrieval

import "github.com/stratarag/strata/internal/graph"

// byDocument reorders ranked chunks so that every document contributes its best chunk before
// any document contributes a second one: round r holds the r-th best chunk of each document,
// documents in the order of their best chunk. A long document would otherwise fill most of the
// top k with chunks that repeat what its best one says, and crowd out the other documents a
// multi-hop question needs.
func byDocument(chunks []graph.Chunk) []graph.Chunk {
	var docs []string
	perDoc := map[string][]graph.Chunk{}
	for _, c := range chunks {
		if _, ok := perDoc[c.DocumentID]; !ok {
			docs = append(docs, c.DocumentID)
		}
		perDoc[c.DocumentID] = append(perDoc[c.DocumentID], c)
	}
	out := make([]graph.Chunk, 0, len(chunks))
	for round := 0; len(out) < len(chunks); round++ {
		for _, d := range docs {
			if cs := perDoc[d]; round < len(cs) {
				out = append(out, cs[round])
			}
		}
	}
	return out
}
