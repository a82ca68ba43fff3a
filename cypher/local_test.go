package cypher

import (
	"reflect"
	"testing"

	"github.com/stratarag/strata/internal/graph"
)

func TestExpandLocal(t *testing.T) {
	s, f := newFakeStore(t, Config{}, "")
	f.answer = answers(map[string][]map[string]any{qExpandLocal: {{
		"entities": []any{entityRecord("A", 0), entityRecord("B", 0)},
		"chunks": []any{
			map[string]any{"id": "k-1", "documentId": "d", "seq": int64(0), "text": "x", "tokens": int64(2), "score": int64(2)},
		},
		"communities": []any{
			map[string]any{"id": "0-0", "level": int64(0), "communityId": int64(0), "size": int64(3), "score": int64(2), "seeds": []any{"B", "A"}},
		},
		"insideRelations":  []any{map[string]any{"source": "A", "target": "B", "weight": 2.0, "chunkIds": []any{"k-1"}}},
		"outsideRelations": []any{},
	}}})
	lc, err := s.ExpandLocal(t.Context(), []string{"B", "MISSING", "A", "B"}, graph.LocalOptions{TopChunks: 3, TopCommunities: -1, TopInsideRels: 1})
	if err != nil {
		t.Fatal(err)
	}
	p := f.only(qExpandLocal)[0].params
	wantParams := map[string]any{
		"ids": []string{"B", "MISSING", "A"}, "topChunks": int64(3), "topCommunities": int64(0),
		"topInsideRels": int64(1), "topOutsideRels": int64(0), "distinctCommunities": false,
	}
	if !reflect.DeepEqual(p, wantParams) {
		t.Errorf("params = %#v, want %#v", p, wantParams)
	}
	if len(lc.Entities) != 2 || lc.Entities[0].ID != "B" || lc.Entities[1].ID != "A" {
		t.Errorf("Entities = %+v, want B then A (asked order)", lc.Entities)
	}
	wantChunks := []graph.ScoredChunk{{Chunk: graph.Chunk{ID: "k-1", DocumentID: "d", Text: "x", Tokens: 2}, Score: 2}}
	if !reflect.DeepEqual(lc.Chunks, wantChunks) {
		t.Errorf("Chunks = %+v, want %+v", lc.Chunks, wantChunks)
	}
	if len(lc.Communities) != 1 || lc.Communities[0].Score != 2 || lc.Communities[0].Size != 3 ||
		!reflect.DeepEqual(lc.Communities[0].Seeds, []string{"A", "B"}) {
		t.Errorf("Communities = %+v", lc.Communities)
	}
	if len(lc.InsideRelations) != 1 || lc.InsideRelations[0].Weight != 2 || len(lc.OutsideRelations) != 0 {
		t.Errorf("relations = %+v / %+v", lc.InsideRelations, lc.OutsideRelations)
	}

	f.reset()
	if lc, err := s.ExpandLocal(t.Context(), nil, graph.LocalOptions{TopChunks: 1}); err != nil || len(lc.Entities) != 0 {
		t.Errorf("ExpandLocal(nil) = %+v, %v", lc, err)
	}
	sequence(t, f)
}
