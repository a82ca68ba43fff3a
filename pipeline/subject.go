package pipeline

import (
	"context"
	"fmt"

	"github.com/stratarag/strata/internal/graph"
)

// subjectChange is what a document's subject links need: Subject mentions to add and to remove.
type subjectChange struct {
	add []graph.Mention
	del []graph.MentionKey
}

// subjectLinks makes every chunk of a document mention its subject when some chunk of the
// document names it (its extraction gives the subject's id, case aside): a document is about its
// subject throughout, even where its text says "he" or "the treaty". A subject no chunk names is
// left out rather than added as an entity with nothing said about it; the links are Subject
// mentions, which say nothing and support nothing, so they follow the document's evidence and
// the entity's name comes from the text. Extraction looks for the subject in the text
// (extract.NameSubject: within longer names, sentence-initial, with middle names), which links
// 88 % of the HotpotQA documents with a subject instead of 51 % (docs/RETRIEVAL.md).
//
// chunkIDs are the document's chunks once the change is written; added holds the evidence the
// change writes, replaced the chunks whose stored evidence it drops. oldSubject is the subject
// of the document's stored title, whose links go when the title no longer names it.
func subjectLinks(ctx context.Context, store graph.EvidenceReader, docID, subject, oldSubject string, chunkIDs []string, added []graph.Mention, replaced map[string]bool) (subjectChange, error) {
	var ch subjectChange
	id, oldID := graph.NormalizeID(subject), graph.NormalizeID(oldSubject)
	read := func(id string) ([]graph.Mention, error) {
		ms, err := store.EntityEvidence(ctx, []string{id})
		if err != nil {
			return nil, fmt.Errorf("read the mentions of %s, the subject of %s: %w", id, docID, err)
		}
		var out []graph.Mention
		for _, m := range ms {
			if m.DocumentID == docID && !replaced[m.ChunkID] {
				out = append(out, m)
			}
		}
		return out, nil
	}
	if oldID != "" && oldID != id {
		ms, err := read(oldID)
		if err != nil {
			return ch, err
		}
		for _, m := range ms {
			if m.Subject {
				ch.del = append(ch.del, m.Key())
			}
		}
	}
	if id == "" {
		return ch, nil
	}
	ms, err := read(id)
	if err != nil {
		return ch, err
	}
	for _, m := range added {
		if m.EntityID == id {
			ms = append(ms, m)
		}
	}
	named := map[string]bool{}  // chunks whose evidence names the subject
	linked := map[string]bool{} // chunks with a Subject mention
	for _, m := range ms {
		if m.Subject {
			linked[m.ChunkID] = true
		} else {
			named[m.ChunkID] = true
		}
	}
	want := map[string]bool{}
	if len(named) > 0 {
		for _, c := range chunkIDs {
			if !named[c] {
				want[c] = true
			}
		}
	}
	for _, c := range chunkIDs {
		if want[c] && !linked[c] {
			ch.add = append(ch.add, graph.Mention{ChunkID: c, EntityID: id, Subject: true})
		}
	}
	for _, m := range ms {
		if m.Subject && !want[m.ChunkID] {
			ch.del = append(ch.del, m.Key())
		}
	}
	return ch, nil
}
