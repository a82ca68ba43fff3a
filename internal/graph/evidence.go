package graph

import (
	"cmp"
	"slices"
)

// SortMentions puts mentions in merge order: entity id, document id, Seq, chunk id.
func SortMentions(ms []Mention) {
	slices.SortFunc(ms, func(a, b Mention) int {
		return cmp.Or(cmp.Compare(a.EntityID, b.EntityID), cmp.Compare(a.DocumentID, b.DocumentID),
			cmp.Compare(a.Seq, b.Seq), cmp.Compare(a.ChunkID, b.ChunkID))
	})
}

// SortRelationEvidence puts relation evidence in merge order: key, document id, Seq, chunk id.
func SortRelationEvidence(evs []RelationEvidence) {
	slices.SortFunc(evs, func(a, b RelationEvidence) int {
		return cmp.Or(cmp.Compare(a.Source, b.Source), cmp.Compare(a.Target, b.Target),
			cmp.Compare(a.DocumentID, b.DocumentID), cmp.Compare(a.Seq, b.Seq), cmp.Compare(a.ChunkID, b.ChunkID))
	})
}
