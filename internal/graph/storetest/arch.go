package storetest

import (
	"strings"
	"testing"

	"github.com/stratarag/strata/internal/graph"
)

func archTests() []test {
	return []test{
		{"Arch/PartitionWriteRead", testArchLayers},
		{"Arch/Search", testArchSearch},
		{"Arch/Refused", testArchRefused},
	}
}

// archBatch is clusterBatch with embeddings: the P clique points one way, the Q clique another,
// the isolated Z next to the P's, and the summary SP (layer 1, never part of the attributed
// graph) exactly where a question about P would look.
func archBatch() graph.Batch {
	b := clusterBatch()
	for i := range b.Entities {
		e := &b.Entities[i]
		n := float32(e.ID[len(e.ID)-1]-'0') / 10
		switch {
		case e.ID == "SP":
			e.Embedding = []float32{1, 0, 0}
		case e.ID == "Z":
			e.Embedding = []float32{1, 0.05, 0.3}
		case strings.HasPrefix(e.ID, "P"):
			e.Embedding = []float32{1, n, 0}
		default:
			e.Embedding = []float32{0, 1, n}
		}
	}
	return b
}

func archParams() graph.ArchParams {
	return graph.ArchParams{K: 2, Cutoff: 0.5, Leiden: graph.DefaultLeidenParams()}
}

// archLayer1 is the layer of communities archBatch partitions into.
func archLayer1() []graph.ArchCommunity {
	return []graph.ArchCommunity{
		{ID: "A1-0", Layer: 1, Title: "P", Summary: "the P clique", Members: []string{"P1", "P2", "P3", "P4", "P5", "Z"}, Embedding: []float32{1, 0.3, 0}},
		{ID: "A1-1", Layer: 1, Title: "Q", Summary: "the Q clique", Members: []string{"Q1", "Q2", "Q3", "Q4", "Q5"}, Embedding: []float32{0, 1, 0.3}},
	}
}

// testArchLayers: layer 0 is partitioned by links and similarity (the summary entity left out,
// the isolated Z joining the P's it resembles), layers are written, read back and replaced.
func testArchLayers(t *testing.T, s graph.Store) {
	apply(t, s, archBatch())
	part := must[map[string]int](t, "ArchPartition 0")(s.ArchPartition(ctx(t), 0, archParams()))
	want := map[string]int{"P1": 0, "P2": 0, "P3": 0, "P4": 0, "P5": 0, "Z": 0, "Q1": 1, "Q2": 1, "Q3": 1, "Q4": 1, "Q5": 1}
	check(t, "layer-0 partition", part, want)

	check(t, "links of layer 0", len(must[[]graph.ArchLink](t, "ArchLinks 0")(s.ArchLinks(ctx(t), 0))), 21)
	layer1 := archLayer1()
	links := []graph.ArchLink{{Source: "A1-0", Target: "A1-1", Weight: 1}}
	if err := s.WriteArchLayer(ctx(t), 1, layer1, links); err != nil {
		t.Fatalf("WriteArchLayer 1: %v", err)
	}
	check(t, "layer 1", must[[]graph.ArchCommunity](t, "ArchLayer 1")(s.ArchLayer(ctx(t), 1)), layer1)
	check(t, "links of layer 1", must[[]graph.ArchLink](t, "ArchLinks 1")(s.ArchLinks(ctx(t), 1)), links)
	noEmb := func(cs ...graph.ArchCommunity) []graph.ArchCommunity {
		for i := range cs {
			cs[i].Embedding = nil
		}
		return cs
	}
	check(t, "lookup by id", must[[]graph.ArchCommunity](t, "ArchCommunities")(s.ArchCommunities(ctx(t), []string{"A1-1", "NOPE", "A1-0"})),
		noEmb(layer1[1], layer1[0]))

	part1 := must[map[string]int](t, "ArchPartition 1")(s.ArchPartition(ctx(t), 1, graph.ArchParams{K: 1, Leiden: graph.DefaultLeidenParams()}))
	if len(part1) != 2 || part1["A1-0"] != 0 || part1["A1-1"] > 1 {
		t.Errorf("layer-1 partition %v: want both communities, A1-0 in community 0", part1)
	}
	top := []graph.ArchCommunity{{ID: "A2-0", Layer: 2, Title: "all", Summary: "everything", Members: []string{"A1-0", "A1-1"}, Embedding: []float32{1, 1, 0}}}
	if err := s.WriteArchLayer(ctx(t), 2, top, nil); err != nil {
		t.Fatalf("WriteArchLayer 2: %v", err)
	}
	check(t, "layer 2", must[[]graph.ArchCommunity](t, "ArchLayer 2")(s.ArchLayer(ctx(t), 2)), top)

	// Rewriting layer 1 drops layer 2; an empty layer 1 drops everything.
	if err := s.WriteArchLayer(ctx(t), 1, layer1[:1], nil); err != nil {
		t.Fatalf("rewrite layer 1: %v", err)
	}
	check(t, "layer 2 after rewriting layer 1", len(must[[]graph.ArchCommunity](t, "ArchLayer 2")(s.ArchLayer(ctx(t), 2))), 0)
	check(t, "links after rewriting layer 1", len(must[[]graph.ArchLink](t, "ArchLinks 1")(s.ArchLinks(ctx(t), 1))), 0)
	if err := s.WriteArchLayer(ctx(t), 1, nil, nil); err != nil {
		t.Fatalf("clear: %v", err)
	}
	check(t, "layer 1 after clearing", len(must[[]graph.ArchCommunity](t, "ArchLayer 1")(s.ArchLayer(ctx(t), 1))), 0)
	// The graph the hierarchy was built on is untouched.
	check(t, "entities after clearing", len(must[[]graph.Entity](t, "EntitiesByLayer")(s.EntitiesByLayer(ctx(t), 0))), 11)
}

// testArchSearch: layer 0 searches extracted entities only, within restricts, layers rank their
// communities.
func testArchSearch(t *testing.T, s graph.Store) {
	apply(t, s, archBatch())
	if err := s.WriteArchLayer(ctx(t), 1, archLayer1(), nil); err != nil {
		t.Fatalf("WriteArchLayer: %v", err)
	}
	ids := func(hs []graph.Hit) []string {
		var out []string
		for _, h := range hs {
			out = append(out, h.ID)
		}
		return out
	}
	q := []float32{1, 0.1, 0}
	tests := []struct {
		name   string
		layer  int
		within []string
		k      int
		want   []string
	}{
		{"layer 0 without the summary", 0, nil, 3, []string{"P1", "P2", "P3"}},
		{"layer 0 within", 0, []string{"Q1", "SP", "P5", "A1-0"}, 5, []string{"P5", "Q1"}},
		{"empty within", 0, []string{}, 5, nil},
		{"layer 1", 1, nil, 5, []string{"A1-0", "A1-1"}},
		{"layer 1 within", 1, []string{"A1-1", "P1"}, 5, []string{"A1-1"}},
		{"layer without communities", 2, nil, 5, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			hits := must[[]graph.Hit](t, "ArchSearch")(s.ArchSearch(ctx(t), tc.layer, q, tc.within, tc.k))
			check(t, "hits", ids(hits), tc.want)
			for i := 1; i < len(hits); i++ {
				if hits[i].Score > hits[i-1].Score || hits[i].Score > 1 || hits[i].Score < 0 {
					t.Errorf("scores not in [0,1] and descending: %v", hits)
				}
			}
		})
	}
}

// testArchRefused: members that are not one layer down and layers below 1 are refused, naming
// the input, and leave the store as it was.
func testArchRefused(t *testing.T, s graph.Store) {
	apply(t, s, archBatch())
	if err := s.WriteArchLayer(ctx(t), 1, archLayer1(), nil); err != nil {
		t.Fatalf("WriteArchLayer: %v", err)
	}
	bad := []struct {
		name  string
		layer int
		comms []graph.ArchCommunity
		want  string
	}{
		{"unknown entity", 1, []graph.ArchCommunity{{ID: "A1-0", Layer: 1, Members: []string{"P1", "NOPE"}}}, "NOPE"},
		{"summary entity", 1, []graph.ArchCommunity{{ID: "A1-0", Layer: 1, Members: []string{"SP"}}}, "SP"},
		{"community two layers down", 3, []graph.ArchCommunity{{ID: "A3-0", Layer: 3, Members: []string{"A1-0"}}}, "A1-0"},
		{"layer 0", 0, nil, "layer"},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			err := s.WriteArchLayer(ctx(t), tc.layer, tc.comms, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("WriteArchLayer: got %v, want an error naming %q", err, tc.want)
			}
			check(t, "layer 1 kept", len(must[[]graph.ArchCommunity](t, "ArchLayer 1")(s.ArchLayer(ctx(t), 1))), 2)
		})
	}
}
