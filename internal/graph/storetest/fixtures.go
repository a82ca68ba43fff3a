package storetest

import (
	"time"

	"github.com/stratarag/strata/internal/graph"
)

// The base fixture: two documents, four chunks (three in doc-1, one in doc-2), three extracted
// entities and one summary entity, two relations, three mentions, two summary links and a meta
// value.
//
//	doc-1: c-1 (seq 0) -NEXT-> c-2 (seq 1) -NEXT-> c-3 (seq 2)     doc-2: c-4 (seq 0)
//	ACME -RELATED- ALICE -RELATED- BOB;  ALICE, BOB -SUMMARIZED_BY-> PEOPLE (layer 1)
//	c-1 mentions ALICE and BOB, c-2 mentions ACME

func baseDocuments() []graph.Document {
	ingested := time.Date(2024, 5, 6, 7, 8, 9, 123000000, time.UTC)
	return []graph.Document{
		{ID: "doc-1", Title: "Alpha report", Source: "testdata/alpha.md", SHA256: "a1b2", Metadata: `{"lang":"en"}`, IngestedAt: ingested},
		{ID: "doc-2", Title: "Beta notes", Source: "testdata/beta.jsonl", SHA256: "c3d4", Metadata: "{}", IngestedAt: ingested.Add(time.Hour)},
	}
}

func baseChunks() []graph.Chunk {
	return []graph.Chunk{
		{ID: "c-1", DocumentID: "doc-1", Seq: 0, Text: "Alice met Bob in Paris.", Tokens: 7, Embedding: []float32{1, 0, 0}},
		{ID: "c-2", DocumentID: "doc-1", Seq: 1, Text: "Acme hired Alice.", Tokens: 5, Embedding: []float32{0, 1, 0}},
		{ID: "c-3", DocumentID: "doc-1", Seq: 2, Text: "The weather was fine.", Tokens: 6},
		{ID: "c-4", DocumentID: "doc-2", Seq: 0, Text: "Beta notes have one chunk.", Tokens: 6, Embedding: []float32{0, 0, 1}},
	}
}

func baseEntities() []graph.Entity {
	return []graph.Entity{
		{ID: "ACME", Name: "Acme", Type: "organization", Description: "A company that hired Alice.", Embedding: []float32{0.5, 0.5, 0}},
		{ID: "ALICE", Name: "Alice", Type: "person", Description: "An engineer.", Embedding: []float32{1, 0, 0}},
		{ID: "BOB", Name: "Bob", Type: "person", Description: "A friend of Alice."},
		{ID: "PEOPLE", Name: "People", Type: "social sciences", Description: "The people of the story.", Layer: 1, Embedding: []float32{0, 0, 1}},
	}
}

func baseRelations() []graph.Relation {
	return []graph.Relation{
		{Source: "ACME", Target: "ALICE", Description: "Acme hired Alice.", Weight: 2, ChunkIDs: []string{"c-2"}},
		{Source: "ALICE", Target: "BOB", Description: "Alice met Bob.", Weight: 1.5, ChunkIDs: []string{"c-1"}},
	}
}

func baseBatch() graph.Batch {
	return graph.Batch{
		Documents: baseDocuments(),
		Chunks:    baseChunks(),
		Entities:  baseEntities(),
		Relations: baseRelations(),
		Mentions: []graph.Mention{
			{ChunkID: "c-1", EntityID: "ALICE"}, {ChunkID: "c-1", EntityID: "BOB"}, {ChunkID: "c-2", EntityID: "ACME"},
		},
		SummaryLinks: []graph.SummaryLink{
			{Member: "ALICE", Summary: "PEOPLE", Description: "Alice is one of the people.", Weight: 1},
			{Member: "BOB", Summary: "PEOPLE", Description: "Bob is one of the people.", Weight: 0.5},
		},
		Meta: map[string]string{"embedding_model": "test-model"},
	}
}

// stored returns the entities as a store returns them before ComputeComponents ran.
func stored(es []graph.Entity) []graph.Entity {
	out := make([]graph.Entity, len(es))
	for i, e := range es {
		e.ComponentID, e.Degree = -1, 0
		out[i] = e
	}
	return out
}

// counts builds a Stats with every key of the contract, zero unless given. Keys name node labels
// or relationship types; which map they land in follows from the name.
func counts(kv map[string]int64) graph.Stats {
	st := graph.Stats{
		Nodes:         map[string]int64{"Document": 0, "Chunk": 0, "Entity": 0, "Summary": 0, "Community": 0},
		Relationships: map[string]int64{"PART_OF": 0, "NEXT": 0, "HAS_ENTITY": 0, "RELATED": 0, "SUMMARIZED_BY": 0, "IN_COMMUNITY": 0, "CHILD_OF": 0},
	}
	for k, v := range kv {
		if _, ok := st.Nodes[k]; ok {
			st.Nodes[k] = v
		} else if _, ok := st.Relationships[k]; ok {
			st.Relationships[k] = v
		} else {
			panic("storetest: unknown Stats key " + k)
		}
	}
	return st
}

// baseCounts is what Stats reports after baseBatch.
func baseCounts() graph.Stats {
	return counts(map[string]int64{
		"Document": 2, "Chunk": 4, "Entity": 4, "Summary": 1,
		"PART_OF": 4, "NEXT": 2, "HAS_ENTITY": 3, "RELATED": 2, "SUMMARIZED_BY": 2,
	})
}

// pick returns the items of all whose id is in ids, in the order of ids.
func pick[T any](all []T, id func(T) string, ids ...string) []T {
	var out []T
	for _, want := range ids {
		for _, v := range all {
			if id(v) == want {
				out = append(out, v)
			}
		}
	}
	return out
}

func documentID(d graph.Document) string { return d.ID }
func chunkID(c graph.Chunk) string       { return c.ID }
func entityID(e graph.Entity) string     { return e.ID }
