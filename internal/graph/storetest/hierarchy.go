package storetest

import (
	"reflect"
	"slices"
	"testing"

	"github.com/stratarag/strata/internal/graph"
)

func hierarchyTests() []test {
	return []test{
		{"LayerEdges", testLayerEdges},
		{"Ancestors", testAncestors},
		{"AncestorLinks", testAncestorLinks},
		{"LayerLinks", testLayerLinks},
	}
}

// hierarchyBatch is a two-layer hierarchy with one inter-summary relation:
//
//	layer 0: A -RELATED- B -RELATED- C -RELATED- D
//	layer 1: A, B -> S1;  B, C -> S2 (B in two clusters);  D -> S3;  S1 -RELATED- S2
//	layer 2: S1, S2 -> T
func hierarchyBatch() graph.Batch {
	e := func(id string, layer int) graph.Entity {
		return graph.Entity{ID: id, Name: id, Type: "other", Description: "about " + id, Layer: layer}
	}
	link := func(m, s string, w float64) graph.SummaryLink {
		return graph.SummaryLink{Member: m, Summary: s, Description: m + " belongs to " + s, Weight: w}
	}
	return graph.Batch{
		Entities: []graph.Entity{e("A", 0), e("B", 0), e("C", 0), e("D", 0), e("S1", 1), e("S2", 1), e("S3", 1), e("T", 2)},
		Relations: []graph.Relation{
			{Source: "A", Target: "B", Description: "A and B", Weight: 1, ChunkIDs: []string{}},
			{Source: "C", Target: "B", Description: "B and C", Weight: 3, ChunkIDs: []string{}}, // stored as B-C
			{Source: "C", Target: "D", Description: "C and D", Weight: 2, ChunkIDs: []string{}},
			{Source: "S2", Target: "S1", Description: "S1 and S2", Weight: 4, ChunkIDs: []string{}},
		},
		SummaryLinks: []graph.SummaryLink{
			link("A", "S1", 1), link("B", "S1", 0.6), link("B", "S2", 0.4), link("C", "S2", 1), link("D", "S3", 1),
			link("S1", "T", 1), link("S2", "T", 0.9),
		},
	}
}

// testLayerEdges: the relations between two entities of the layer asked for, keyed smaller id
// first and ordered by key; none on a layer without relations, and none between two layers.
func testLayerEdges(t *testing.T, s graph.Store) {
	b := hierarchyBatch()
	b.Relations = append(b.Relations,
		graph.Relation{Source: "A", Target: "S2", Description: "across layers 0 and 1", Weight: 1, ChunkIDs: []string{}},
		graph.Relation{Source: "S3", Target: "T", Description: "across layers 1 and 2", Weight: 1, ChunkIDs: []string{}})
	apply(t, s, b)
	for _, tc := range []struct {
		layer int
		want  []graph.Edge
	}{
		{0, []graph.Edge{{Source: "A", Target: "B", Weight: 1}, {Source: "B", Target: "C", Weight: 3}, {Source: "C", Target: "D", Weight: 2}}},
		{1, []graph.Edge{{Source: "S1", Target: "S2", Weight: 4}}},
		{2, nil},
	} {
		got := must[[]graph.Edge](t, "LayerEdges")(graph.LayerEdges(t.Context(), s, tc.layer))
		if len(got) == 0 {
			got = nil
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("LayerEdges(%d) = %+v, want %+v", tc.layer, got, tc.want)
		}
	}
}

// testAncestors: the walk up SUMMARIZED_BY from the entities asked for reaches every ancestor
// (through soft memberships too), and returns only the links and relations among what it
// reached; missing ids are skipped.
func testAncestors(t *testing.T, s graph.Store) {
	apply(t, s, hierarchyBatch())
	type view struct {
		Entities  []string // id@layer
		Links     []string // member>summary
		Relations []string // source-target
	}
	see := func(h graph.Hierarchy) view {
		var v view
		for _, e := range h.Entities {
			if len(e.Embedding) != 0 {
				t.Errorf("Ancestors returned the embedding of %s", e.ID)
			}
			v.Entities = append(v.Entities, e.ID+"@"+string(rune('0'+e.Layer)))
		}
		for _, l := range h.Links {
			if l.Description != l.Member+" belongs to "+l.Summary || l.Weight <= 0 {
				t.Errorf("link %+v lost its properties", l)
			}
			v.Links = append(v.Links, l.Member+">"+l.Summary)
		}
		for _, r := range h.Relations {
			v.Relations = append(v.Relations, r.Source+"-"+r.Target)
		}
		return v
	}
	for _, tc := range []struct {
		ids  []string
		want view
	}{
		{[]string{"A"}, view{Entities: []string{"A@0", "S1@1", "T@2"}, Links: []string{"A>S1", "S1>T"}}},
		{[]string{"C", "A", "MISSING"}, view{
			Entities:  []string{"A@0", "C@0", "S1@1", "S2@1", "T@2"},
			Links:     []string{"A>S1", "C>S2", "S1>T", "S2>T"},
			Relations: []string{"S1-S2"},
		}},
		{[]string{"B"}, view{Entities: []string{"B@0", "S1@1", "S2@1", "T@2"}, Links: []string{"B>S1", "B>S2", "S1>T", "S2>T"}, Relations: []string{"S1-S2"}}},
		{[]string{"D", "C"}, view{Entities: []string{"C@0", "D@0", "S2@1", "S3@1", "T@2"}, Links: []string{"C>S2", "D>S3", "S2>T"}, Relations: []string{"C-D"}}},
		{[]string{"S1"}, view{Entities: []string{"S1@1", "T@2"}, Links: []string{"S1>T"}}},
		{[]string{"MISSING"}, view{}},
		{nil, view{}},
	} {
		got := see(must[graph.Hierarchy](t, "Ancestors")(s.Ancestors(t.Context(), tc.ids)))
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Ancestors(%q) = %+v, want %+v", tc.ids, got, tc.want)
		}
	}
}

// testAncestorLinks: the links above the entities asked for are those of every entity the walk
// up reaches (soft memberships too), member and summary only, ordered by member then summary;
// the Links of Ancestors, without their properties; missing ids are skipped; a new link is
// read back.
func testAncestorLinks(t *testing.T, s graph.Store) {
	apply(t, s, hierarchyBatch())
	for _, tc := range []struct {
		ids  []string
		want []string // member>summary
	}{
		{[]string{"A"}, []string{"A>S1", "S1>T"}},
		{[]string{"C", "A", "MISSING", "A"}, []string{"A>S1", "C>S2", "S1>T", "S2>T"}},
		{[]string{"B"}, []string{"B>S1", "B>S2", "S1>T", "S2>T"}},
		{[]string{"D", "C"}, []string{"C>S2", "D>S3", "S2>T"}},
		{[]string{"S1", "T"}, []string{"S1>T"}},
		{[]string{"T"}, nil},
		{[]string{"MISSING"}, nil},
		{nil, nil},
	} {
		got := must[[]graph.SummaryLink](t, "AncestorLinks")(s.AncestorLinks(t.Context(), tc.ids))
		var view []string
		for _, l := range got {
			if l.Description != "" || l.Weight != 0 {
				t.Errorf("AncestorLinks(%q): link %+v has properties, want member and summary only", tc.ids, l)
			}
			view = append(view, l.Member+">"+l.Summary)
		}
		if !slices.Equal(view, tc.want) {
			t.Errorf("AncestorLinks(%q) = %v, want %v", tc.ids, view, tc.want)
		}
		h := must[graph.Hierarchy](t, "Ancestors")(s.Ancestors(t.Context(), tc.ids))
		if len(h.Links) != len(got) {
			t.Errorf("AncestorLinks(%q): %d links, Ancestors has %d", tc.ids, len(got), len(h.Links))
		}
	}
	// A link written after a read is followed (a store that keeps a copy reloads it).
	apply(t, s, graph.Batch{SummaryLinks: []graph.SummaryLink{{Member: "S3", Summary: "T", Description: "S3 belongs to T", Weight: 1}}})
	var view []string
	for _, l := range must[[]graph.SummaryLink](t, "AncestorLinks")(s.AncestorLinks(t.Context(), []string{"D"})) {
		view = append(view, l.Member+">"+l.Summary)
	}
	if want := []string{"D>S3", "S3>T"}; !slices.Equal(view, want) {
		t.Errorf("AncestorLinks(D) after S3 joined T = %v, want %v", view, want)
	}
}

// testLayerLinks: the SUMMARIZED_BY links out of one layer into the layer above, with their
// descriptions and weights, ordered by member then summary; a member in two clusters has both
// links; a layer with no links above it (the top, one beyond it, an empty store) has none; a
// link that skips a layer belongs to neither.
func testLayerLinks(t *testing.T, s graph.Store) {
	if got := must[[]graph.SummaryLink](t, "LayerLinks")(s.LayerLinks(t.Context(), 0)); len(got) != 0 {
		t.Errorf("LayerLinks(0) of an empty store = %+v, want none", got)
	}
	b := hierarchyBatch()
	b.SummaryLinks = append(b.SummaryLinks, graph.SummaryLink{Member: "D", Summary: "T", Description: "D skips a layer", Weight: 1})
	slices.Reverse(b.SummaryLinks) // written out of order, read back in order
	apply(t, s, b)
	link := func(m, sum string, w float64) graph.SummaryLink {
		return graph.SummaryLink{Member: m, Summary: sum, Description: m + " belongs to " + sum, Weight: w}
	}
	for _, tc := range []struct {
		layer int
		want  []graph.SummaryLink
	}{
		{0, []graph.SummaryLink{link("A", "S1", 1), link("B", "S1", 0.6), link("B", "S2", 0.4), link("C", "S2", 1), link("D", "S3", 1)}},
		{1, []graph.SummaryLink{link("S1", "T", 1), link("S2", "T", 0.9)}},
		{2, nil},
		{3, nil},
	} {
		got := must[[]graph.SummaryLink](t, "LayerLinks")(s.LayerLinks(t.Context(), tc.layer))
		if len(got) == 0 {
			got = nil
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("LayerLinks(%d) = %+v, want %+v", tc.layer, got, tc.want)
		}
	}
}
