package storetest

import (
	"fmt"
	"testing"

	"github.com/stratarag/strata/internal/graph"
)

func lookupTests() []test {
	return []test{
		{"Lookup/OrderAndMissing", testLookupOrder},
		{"Lookup/EntitiesByLayerOrder", testEntitiesByLayerOrder},
		{"Lookup/EntitiesAfterPages", testEntitiesAfterPages},
		{"Lookup/EntityScansAndTexts", testEntityScansAndTexts},
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

// testEntityScansAndTexts: the scans page, in id order, through the ids of a layer's entities
// with an embedding and through the entities without one, and an entity that gets an embedding
// moves from one to the other; EntityTexts is Entities without the embeddings.
func testEntityScansAndTexts(t *testing.T, s graph.Store) {
	var es []graph.Entity
	for i, id := range []string{"D", "A", "E", "B", "C"} {
		e := graph.Entity{ID: id, Name: id, Type: "thing", Description: "entity " + id}
		if id == "A" || id == "C" || id == "E" {
			e.Embedding = []float32{1, float32(i)}
		}
		es = append(es, e)
	}
	es = append(es,
		graph.Entity{ID: "S", Name: "S", Type: "thing", Description: "summary S", Layer: 1, Embedding: []float32{2, 1}},
		graph.Entity{ID: "T", Name: "T", Type: "thing", Description: "summary T", Layer: 1})
	apply(t, s, graph.Batch{Entities: es})
	noVector := func(es []graph.Entity) []graph.Entity {
		out := stored(es)
		for i := range out {
			out[i].Embedding = nil
		}
		return out
	}

	ids := func(layer int, limit int) []string {
		var got []string
		after := ""
		for pages := 0; pages <= len(es); pages++ {
			page := must[[]string](t, "EmbeddedIDsAfter")(s.EmbeddedIDsAfter(ctx(t), layer, after, limit))
			if len(page) > limit {
				t.Fatalf("EmbeddedIDsAfter(limit %d) returned %d ids", limit, len(page))
			}
			got = append(got, page...)
			if len(page) < limit {
				break
			}
			after = page[len(page)-1]
		}
		return got
	}
	unembedded := func(layer int, limit int) []graph.Entity {
		var got []graph.Entity
		after := ""
		for pages := 0; pages <= len(es); pages++ {
			page := must[[]graph.Entity](t, "UnembeddedAfter")(s.UnembeddedAfter(ctx(t), layer, after, limit))
			if len(page) > limit {
				t.Fatalf("UnembeddedAfter(limit %d) returned %d entities", limit, len(page))
			}
			got = append(got, page...)
			if len(page) < limit {
				break
			}
			after = page[len(page)-1].ID
		}
		return got
	}
	for _, limit := range []int{1, 2, 3, 10} {
		check(t, fmt.Sprintf("EmbeddedIDsAfter(layer 0) in pages of %d", limit), ids(0, limit), []string{"A", "C", "E"})
		check(t, fmt.Sprintf("UnembeddedAfter(layer 0) in pages of %d", limit), unembedded(0, limit), stored(pick(es, entityID, "B", "D")))
	}
	check(t, "EmbeddedIDsAfter(layer 0, after C)", must[[]string](t, "EmbeddedIDsAfter")(s.EmbeddedIDsAfter(ctx(t), 0, "C", 10)), []string{"E"})
	check(t, "EmbeddedIDsAfter(layer 1)", ids(1, 10), []string{"S"})
	check(t, "UnembeddedAfter(layer 1)", unembedded(1, 10), stored(pick(es, entityID, "T")))

	b := pick(es, entityID, "B")[0]
	b.Embedding = []float32{3, 4}
	apply(t, s, graph.Batch{Entities: []graph.Entity{b}})
	check(t, "EmbeddedIDsAfter(layer 0) once B has an embedding", ids(0, 2), []string{"A", "B", "C", "E"})
	check(t, "UnembeddedAfter(layer 0) once B has an embedding", unembedded(0, 2), stored(pick(es, entityID, "D")))

	want := []string{"E", "NOBODY", "T", "B", "A"}
	full := must[[]graph.Entity](t, "Entities")(s.Entities(ctx(t), want))
	if len(full) != 4 || len(full[0].Embedding) == 0 {
		t.Fatalf("Entities(%v) = %+v, want E, T, B and A, E with its embedding", want, full)
	}
	check(t, "EntityTexts", must[[]graph.Entity](t, "EntityTexts")(s.EntityTexts(ctx(t), want)), noVector(full))
	if got := must[[]graph.Entity](t, "EntityTexts")(s.EntityTexts(ctx(t), nil)); len(got) != 0 {
		t.Errorf("EntityTexts(nil) = %v, want none", got)
	}
	if _, err := s.EmbeddedIDsAfter(ctx(t), 0, "", 0); err == nil {
		t.Error("EmbeddedIDsAfter with limit 0: no error")
	}
	if _, err := s.UnembeddedAfter(ctx(t), 0, "", 0); err == nil {
		t.Error("UnembeddedAfter with limit 0: no error")
	}
}
