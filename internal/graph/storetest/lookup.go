package storetest

import (
	"testing"

	"github.com/stratarag/strata/internal/graph"
)

func lookupTests() []test {
	return []test{
		{"Lookup/OrderAndMissing", testLookupOrder},
		{"Lookup/EntitiesByLayerOrder", testEntitiesByLayerOrder},
		{"Lookup/EntitiesAfterPages", testEntitiesAfterPages},
	}
}

// testLookupOrder: lookups return what exists in the order asked for and skip missing ids.
func testLookupOrder(t *testing.T, s graph.Store) {
	b := baseBatch()
	apply(t, s, b)
	if got := must[[]graph.Document](t, "Documents")(s.Documents(ctx(t), nil)); len(got) != 0 {
		t.Errorf("Documents(nil) = %v, want none", got)
	}
	check(t, "Documents",
		must[[]graph.Document](t, "Documents")(s.Documents(ctx(t), []string{"doc-2", "nope", "doc-1"})),
		pick(b.Documents, documentID, "doc-2", "doc-1"))
	check(t, "Chunks",
		must[[]graph.Chunk](t, "Chunks")(s.Chunks(ctx(t), []string{"c-4", "c-2", "c-9", "c-1"})),
		pick(b.Chunks, chunkID, "c-4", "c-2", "c-1"))
	check(t, "Entities",
		must[[]graph.Entity](t, "Entities")(s.Entities(ctx(t), []string{"PEOPLE", "NOBODY", "BOB", "ACME"})),
		stored(pick(b.Entities, entityID, "PEOPLE", "BOB", "ACME")))
	check(t, "Relations",
		must[[]graph.Relation](t, "Relations")(s.Relations(ctx(t), []graph.RelationKey{
			{Source: "ALICE", Target: "BOB"}, {Source: "BOB", Target: "PEOPLE"}, {Source: "ACME", Target: "ALICE"},
		})),
		[]graph.Relation{b.Relations[1], b.Relations[0]})
	if got := must[[]graph.Community](t, "Communities")(s.Communities(ctx(t), []string{"0-0"})); len(got) != 0 {
		t.Errorf("Communities before ComputeCommunities = %v, want none", got)
	}
	if got := must[[]graph.Chunk](t, "DocumentChunks")(s.DocumentChunks(ctx(t), "nope")); len(got) != 0 {
		t.Errorf("DocumentChunks of a missing document = %v, want none", got)
	}
}

// testEntitiesByLayerOrder: entities of a layer come ordered by id, whatever the write order.
func testEntitiesByLayerOrder(t *testing.T, s graph.Store) {
	var es []graph.Entity
	for _, id := range []string{"M", "B", "Z", "A", "K"} {
		es = append(es, graph.Entity{ID: id, Name: id, Type: "thing", Description: "entity " + id})
	}
	es = append(es, graph.Entity{ID: "C", Name: "C", Type: "thing", Description: "summary C", Layer: 2})
	apply(t, s, graph.Batch{Entities: es[:3]})
	apply(t, s, graph.Batch{Entities: es[3:]})
	check(t, "EntitiesByLayer(0)",
		must[[]graph.Entity](t, "EntitiesByLayer")(s.EntitiesByLayer(ctx(t), 0)),
		stored(pick(es, entityID, "A", "B", "K", "M", "Z")))
	check(t, "EntitiesByLayer(2)",
		must[[]graph.Entity](t, "EntitiesByLayer")(s.EntitiesByLayer(ctx(t), 2)),
		stored(pick(es, entityID, "C")))
	if got := must[[]graph.Entity](t, "EntitiesByLayer")(s.EntitiesByLayer(ctx(t), 1)); len(got) != 0 {
		t.Errorf("EntitiesByLayer(1) = %v, want none", got)
	}
	check(t, "Stats", stats(t, s), counts(map[string]int64{"Entity": 6, "Summary": 1}))
}

// testEntitiesAfterPages: pages of a layer, whatever their size, join into EntitiesByLayer: in
// id order, each page starting after the id given, the last one short; other layers never show.
func testEntitiesAfterPages(t *testing.T, s graph.Store) {
	var es []graph.Entity
	for _, id := range []string{"M", "B", "Z", "A", "K", "B2"} {
		es = append(es, graph.Entity{ID: id, Name: id, Type: "thing", Description: "entity " + id, Embedding: []float32{1, float32(len(id))}})
	}
	es = append(es, graph.Entity{ID: "C", Name: "C", Type: "thing", Description: "summary C", Layer: 1})
	apply(t, s, graph.Batch{Entities: es})
	want := must[[]graph.Entity](t, "EntitiesByLayer")(s.EntitiesByLayer(ctx(t), 0))
	if len(want) != 6 {
		t.Fatalf("EntitiesByLayer(0) holds %d entities, want 6", len(want))
	}
	for _, limit := range []int{1, 2, 4, 6, 7} {
		var got []graph.Entity
		after, pages := "", 0
		for {
			page := must[[]graph.Entity](t, "EntitiesAfter")(s.EntitiesAfter(ctx(t), 0, after, limit))
			pages++
			if len(page) > limit {
				t.Fatalf("EntitiesAfter(limit %d) returned %d entities", limit, len(page))
			}
			got = append(got, page...)
			if len(page) < limit || pages > len(want)+1 {
				break
			}
			after = page[len(page)-1].ID
		}
		check(t, "EntitiesAfter pages of "+string(rune('0'+limit)), got, want)
	}
	check(t, "EntitiesAfter(layer 0, after K)", must[[]graph.Entity](t, "EntitiesAfter")(s.EntitiesAfter(ctx(t), 0, "K", 10)), want[4:])
	check(t, "EntitiesAfter(layer 1)", must[[]graph.Entity](t, "EntitiesAfter")(s.EntitiesAfter(ctx(t), 1, "", 10)), stored(pick(es, entityID, "C")))
	if _, err := s.EntitiesAfter(ctx(t), 0, "", 0); err == nil {
		t.Error("EntitiesAfter with limit 0: no error")
	}
}
