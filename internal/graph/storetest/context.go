package storetest

import (
	"context"
	"testing"

	"github.com/stratarag/strata/internal/graph"
)

func contextTests() []test {
	return []test{
		{"Context/Canceled", testCanceled},
	}
}

// testCanceled: every method fails on a canceled context instead of doing the work, and a
// canceled Apply writes nothing.
func testCanceled(t *testing.T, s graph.Store) {
	apply(t, s, baseBatch())
	c, cancel := context.WithCancel(ctx(t))
	cancel()
	calls := []struct {
		name string
		call func() error
	}{
		{"Apply", func() error {
			return s.Apply(c, graph.Batch{Documents: []graph.Document{{ID: "late", Metadata: "{}"}}})
		}},
		{"Documents", func() error { _, err := s.Documents(c, []string{"doc-1"}); return err }},
		{"Chunks", func() error { _, err := s.Chunks(c, []string{"c-1"}); return err }},
		{"Entities", func() error { _, err := s.Entities(c, []string{"ALICE"}); return err }},
		{"Relations", func() error {
			_, err := s.Relations(c, []graph.RelationKey{{Source: "ALICE", Target: "BOB"}})
			return err
		}},
		{"Communities", func() error { _, err := s.Communities(c, []string{"0-0"}); return err }},
		{"DocumentChunks", func() error { _, err := s.DocumentChunks(c, "doc-1"); return err }},
		{"EntitiesByLayer", func() error { _, err := s.EntitiesByLayer(c, 0); return err }},
		{"EntitiesAfter", func() error { _, err := s.EntitiesAfter(c, 0, "", 10); return err }},
		{"CommunitiesByLevel", func() error { _, err := s.CommunitiesByLevel(c, -1); return err }},
		{"CommunityMembers", func() error { _, err := s.CommunityMembers(c, "0-0", -1); return err }},
		{"CommunityEntities", func() error { _, err := s.CommunityEntities(c, []string{"0-0"}); return err }},
		{"Meta", func() error { _, _, err := s.Meta(c, "embedding_model"); return err }},
		{"Stats", func() error { _, err := s.Stats(c); return err }},
		{"VectorSearch", func() error {
			_, err := s.VectorSearch(c, graph.ChunkEmbedding, []float32{1, 0, 0}, 3)
			return err
		}},
		{"TextSearch", func() error { _, err := s.TextSearch(c, graph.ChunkText, "alice", 3); return err }},
		{"ExpandLocal", func() error {
			_, err := s.ExpandLocal(c, []string{"ALICE"}, graph.LocalOptions{TopChunks: 3})
			return err
		}},
		{"ShortestPaths", func() error {
			_, err := s.ShortestPaths(c, []graph.PathRequest{{Source: "ACME", Target: "BOB"}}, 3)
			return err
		}},
		{"ComputeComponents", func() error { _, err := s.ComputeComponents(c); return err }},
		{"ComputeCommunities", func() error { _, err := s.ComputeCommunities(c, graph.DefaultLeidenParams()); return err }},
	}
	for _, tc := range calls {
		if err := tc.call(); err == nil {
			t.Errorf("%s with a canceled context succeeded", tc.name)
		}
	}
	if got := must[[]graph.Document](t, "Documents")(s.Documents(ctx(t), []string{"late"})); len(got) != 0 {
		t.Errorf("Apply with a canceled context wrote %v", got)
	}
}
