package storetest

import (
	"testing"

	"github.com/stratarag/strata/internal/graph"
)

func evidenceTests() []test {
	return []test{
		{"Evidence/RoundTrip", testEvidenceRoundTrip},
		{"Evidence/ReplacedWhole", testEvidenceReplaced},
		{"Evidence/Added", testEvidenceAdded},
		{"Evidence/Deletes", testEvidenceDeletes},
	}
}

// evidenceBatch is the base fixture with evidence: c-1 says something about ALICE and BOB and
// their relation, c-2 about ACME and ALICE and theirs, c-4 (doc-2) about ALICE; c-3 links ALICE
// as its document's subject only.
func evidenceBatch() graph.Batch {
	b := baseBatch()
	b.Mentions = []graph.Mention{
		{ChunkID: "c-1", EntityID: "ALICE", Name: "Alice", Type: "person", Description: "Met Bob."},
		{ChunkID: "c-1", EntityID: "BOB", Name: "Bob", Type: "person", Description: "A friend of Alice."},
		{ChunkID: "c-2", EntityID: "ACME", Name: "Acme", Type: "organization", Description: "A company."},
		{ChunkID: "c-2", EntityID: "ALICE", Name: "alice", Description: "Hired by Acme."},
		{ChunkID: "c-3", EntityID: "ALICE", Subject: true},
		{ChunkID: "c-4", EntityID: "ALICE", Name: "Alice", Type: "person", Description: "Writes notes."},
	}
	b.Relations[0].Evidence = []graph.RelationEvidence{{ChunkID: "c-2", Description: "Acme hired Alice.", Weight: 2}}
	b.Relations[1].Evidence = []graph.RelationEvidence{{ChunkID: "c-1", Description: "Alice met Bob.", Weight: 1.5}}
	return b
}

// placed returns the mentions of evidenceBatch with the places of their chunks, as reads return
// them.
func placed(ms ...graph.Mention) []graph.Mention {
	where := map[string]graph.Chunk{}
	for _, c := range baseChunks() {
		where[c.ID] = c
	}
	out := make([]graph.Mention, len(ms))
	for i, m := range ms {
		m.DocumentID, m.Seq = where[m.ChunkID].DocumentID, where[m.ChunkID].Seq
		out[i] = m
	}
	return out
}

func mentionsOf(chunkEntity ...string) []graph.Mention {
	all := evidenceBatch().Mentions
	var out []graph.Mention
	for i := 0; i < len(chunkEntity); i += 2 {
		for _, m := range all {
			if m.ChunkID == chunkEntity[i] && m.EntityID == chunkEntity[i+1] {
				out = append(out, m)
			}
		}
	}
	return placed(out...)
}

func unsupported(t *testing.T, s graph.Store) [2]int64 {
	t.Helper()
	e, r, err := s.Unsupported(ctx(t))
	if err != nil {
		t.Fatalf("Unsupported: %v", err)
	}
	return [2]int64{e, r}
}

// testEvidenceRoundTrip: evidence comes back in merge order (entity, document, seq, chunk), with
// the place of its chunk; ordinary reads leave Relation.Evidence empty; a subject mention does not
// support its entity.
func testEvidenceRoundTrip(t *testing.T, s graph.Store) {
	apply(t, s, evidenceBatch())
	check(t, "EntityEvidence(BOB, ALICE)", must[[]graph.Mention](t, "EntityEvidence")(s.EntityEvidence(ctx(t), []string{"BOB", "ALICE", "NOBODY"})),
		mentionsOf("c-1", "ALICE", "c-2", "ALICE", "c-3", "ALICE", "c-4", "ALICE", "c-1", "BOB"))
	check(t, "RelationEvidence", must[[]graph.RelationEvidence](t, "RelationEvidence")(s.RelationEvidence(ctx(t),
		[]graph.RelationKey{{Source: "BOB", Target: "ALICE"}, graph.NewRelationKey("ACME", "ALICE")})),
		[]graph.RelationEvidence{
			{Source: "ACME", Target: "ALICE", ChunkID: "c-2", Description: "Acme hired Alice.", Weight: 2, DocumentID: "doc-1", Seq: 1},
			{Source: "ALICE", Target: "BOB", ChunkID: "c-1", Description: "Alice met Bob.", Weight: 1.5, DocumentID: "doc-1", Seq: 0},
		})
	mentions, relations, err := s.ChunkEvidence(ctx(t), []string{"c-2", "c-3"})
	if err != nil {
		t.Fatalf("ChunkEvidence: %v", err)
	}
	check(t, "ChunkEvidence(c-2, c-3) mentions", mentions, mentionsOf("c-2", "ACME", "c-2", "ALICE", "c-3", "ALICE"))
	check(t, "ChunkEvidence(c-2, c-3) relations", relations, []graph.RelationEvidence{
		{Source: "ACME", Target: "ALICE", ChunkID: "c-2", Description: "Acme hired Alice.", Weight: 2, DocumentID: "doc-1", Seq: 1},
	})
	check(t, "Relations leave Evidence empty", must[[]graph.Relation](t, "Relations")(s.Relations(ctx(t), []graph.RelationKey{graph.NewRelationKey("ACME", "ALICE")})),
		baseRelations()[:1])
	check(t, "Unsupported", unsupported(t, s), [2]int64{0, 0})

	// ALICE left with her subject mention only is unsupported; a relation without evidence too.
	apply(t, s, graph.Batch{
		DeleteMentions: []graph.MentionKey{{ChunkID: "c-1", EntityID: "ALICE"}, {ChunkID: "c-2", EntityID: "ALICE"}, {ChunkID: "c-4", EntityID: "ALICE"}},
		Relations:      []graph.Relation{{Source: "ALICE", Target: "BOB", Description: "Alice met Bob.", Weight: 1.5}},
	})
	check(t, "Unsupported after deleting ALICE's evidence", unsupported(t, s), [2]int64{1, 1})
}

// testEvidenceReplaced: writing a relation replaces its evidence as a whole; writing a mention
// replaces what it says.
func testEvidenceReplaced(t *testing.T, s graph.Store) {
	apply(t, s, evidenceBatch())
	rel := baseRelations()[1]
	rel.ChunkIDs = []string{"c-4"}
	rel.Evidence = []graph.RelationEvidence{{ChunkID: "c-4", Description: "Bob reads Alice's notes.", Weight: 1}}
	m := graph.Mention{ChunkID: "c-1", EntityID: "BOB", Name: "Bobby", Type: "person", Description: "Alice's friend."}
	apply(t, s, graph.Batch{Relations: []graph.Relation{rel}, Mentions: []graph.Mention{m}})
	check(t, "RelationEvidence after rewriting", must[[]graph.RelationEvidence](t, "RelationEvidence")(s.RelationEvidence(ctx(t),
		[]graph.RelationKey{graph.NewRelationKey("ALICE", "BOB")})),
		[]graph.RelationEvidence{{Source: "ALICE", Target: "BOB", ChunkID: "c-4", Description: "Bob reads Alice's notes.", Weight: 1, DocumentID: "doc-2", Seq: 0}})
	check(t, "EntityEvidence(BOB) after rewriting", must[[]graph.Mention](t, "EntityEvidence")(s.EntityEvidence(ctx(t), []string{"BOB"})),
		placed(m))
}

// testEvidenceAdded: a relation written with AddEvidence keeps the evidence of the chunks it
// does not name and replaces that of the chunks it names; its other properties are written as
// usual. A relation written without it afterwards replaces the evidence as a whole again.
func testEvidenceAdded(t *testing.T, s graph.Store) {
	apply(t, s, evidenceBatch())
	rel := baseRelations()[1]
	rel.Description, rel.Weight, rel.ChunkIDs = "Alice met Bob.\nBob reads Alice's notes.", 3.5, []string{"c-1", "c-4"}
	rel.AddEvidence = true
	rel.Evidence = []graph.RelationEvidence{{ChunkID: "c-4", Description: "Bob reads Alice's notes.", Weight: 2}}
	apply(t, s, graph.Batch{Relations: []graph.Relation{rel}})
	key := []graph.RelationKey{graph.NewRelationKey("ALICE", "BOB")}
	check(t, "RelationEvidence after adding c-4", must[[]graph.RelationEvidence](t, "RelationEvidence")(s.RelationEvidence(ctx(t), key)),
		[]graph.RelationEvidence{
			{Source: "ALICE", Target: "BOB", ChunkID: "c-1", Description: "Alice met Bob.", Weight: 1.5, DocumentID: "doc-1", Seq: 0},
			{Source: "ALICE", Target: "BOB", ChunkID: "c-4", Description: "Bob reads Alice's notes.", Weight: 2, DocumentID: "doc-2", Seq: 0},
		})
	stored := rel
	stored.AddEvidence, stored.Evidence = false, nil
	check(t, "Relations after adding c-4", must[[]graph.Relation](t, "Relations")(s.Relations(ctx(t), key)), []graph.Relation{stored})

	rel.Evidence = []graph.RelationEvidence{{ChunkID: "c-1", Description: "Alice met Bob twice.", Weight: 1}}
	apply(t, s, graph.Batch{Relations: []graph.Relation{rel}})
	check(t, "RelationEvidence after adding to c-1 again", must[[]graph.RelationEvidence](t, "RelationEvidence")(s.RelationEvidence(ctx(t), key)),
		[]graph.RelationEvidence{
			{Source: "ALICE", Target: "BOB", ChunkID: "c-1", Description: "Alice met Bob twice.", Weight: 1, DocumentID: "doc-1", Seq: 0},
			{Source: "ALICE", Target: "BOB", ChunkID: "c-4", Description: "Bob reads Alice's notes.", Weight: 2, DocumentID: "doc-2", Seq: 0},
		})

	rel.AddEvidence = false
	rel.Evidence = []graph.RelationEvidence{{ChunkID: "c-4", Description: "Bob reads.", Weight: 1}}
	apply(t, s, graph.Batch{Relations: []graph.Relation{rel}})
	check(t, "RelationEvidence after replacing", must[[]graph.RelationEvidence](t, "RelationEvidence")(s.RelationEvidence(ctx(t), key)),
		[]graph.RelationEvidence{{Source: "ALICE", Target: "BOB", ChunkID: "c-4", Description: "Bob reads.", Weight: 1, DocumentID: "doc-2", Seq: 0}})
}

// testEvidenceDeletes: DeleteDocuments takes a document's chunks with their evidence;
// DeleteRelations and DeleteEntities remove what they name (an entity with its relationships);
// unknown ids are ignored.
func testEvidenceDeletes(t *testing.T, s graph.Store) {
	apply(t, s, evidenceBatch())
	apply(t, s, graph.Batch{DeleteDocuments: []string{"doc-1", "no-such-document"}})
	check(t, "Stats after deleting doc-1", stats(t, s), counts(map[string]int64{
		"Document": 1, "Chunk": 1, "Entity": 4, "Summary": 1,
		"PART_OF": 1, "HAS_ENTITY": 1, "RELATED": 2, "SUMMARIZED_BY": 2,
	}))
	if got := must[[]graph.Document](t, "Documents")(s.Documents(ctx(t), []string{"doc-1"})); len(got) != 0 {
		t.Errorf("Documents(doc-1) after delete = %v", got)
	}
	check(t, "AllDocuments after deleting doc-1", must[[]graph.Document](t, "AllDocuments")(s.AllDocuments(ctx(t))), baseDocuments()[1:])
	check(t, "EntityEvidence(ALICE) after deleting doc-1", must[[]graph.Mention](t, "EntityEvidence")(s.EntityEvidence(ctx(t), []string{"ALICE"})),
		mentionsOf("c-4", "ALICE"))
	if got := must[[]graph.RelationEvidence](t, "RelationEvidence")(s.RelationEvidence(ctx(t), []graph.RelationKey{graph.NewRelationKey("ALICE", "BOB")})); len(got) != 0 {
		t.Errorf("RelationEvidence of a deleted chunk = %v", got)
	}
	if hits := must[[]graph.Hit](t, "TextSearch")(s.TextSearch(ctx(t), graph.ChunkText, "hired", 10)); len(hits) != 0 {
		t.Errorf("TextSearch still finds a chunk of the deleted document: %v", hits)
	}
	check(t, "Unsupported after deleting doc-1", unsupported(t, s), [2]int64{2, 2})

	apply(t, s, graph.Batch{
		DeleteRelations: []graph.RelationKey{{Source: "BOB", Target: "ALICE"}, {Source: "X", Target: "Y"}},
		DeleteEntities:  []string{"ACME", "BOB", "NOBODY"},
	})
	check(t, "Stats after deleting ACME, BOB and ALICE-BOB", stats(t, s), counts(map[string]int64{
		"Document": 1, "Chunk": 1, "Entity": 2, "Summary": 1,
		"PART_OF": 1, "HAS_ENTITY": 1, "SUMMARIZED_BY": 1,
	}))
	check(t, "Unsupported at the end", unsupported(t, s), [2]int64{0, 0})
}
