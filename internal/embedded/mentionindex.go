package embedded

import (
	"cmp"
	"context"
	"database/sql"
	"slices"
	"sync"

	"github.com/stratarag/strata/internal/graph"
)

// genMentions counts writes to chunks and HAS_ENTITY mentions (schema version 6 on): what
// DocumentLinks reads.
const genMentions = "mentions"

// mentionsVersion is the first schema version whose generations table counts genMentions.
const mentionsVersion = 6

// ratingIndexVersion is the first schema version with the index communities_rating.
const ratingIndexVersion = 6

// version6Migration is the 5 → 6 upgrade: the mentions generation, so that a long-lived reader
// can keep the mentions in memory (mentionIndex) and notice when a write changes them; and
// communities_rating, which ranks communities without reading their rows
// (expandCommunitiesSQL).
func version6Migration() []string {
	return []string{
		`INSERT INTO generations (name, gen) VALUES ('` + genMentions + `', 0)`,
		`CREATE INDEX communities_rating ON communities (id, rating)`,
	}
}

// mentionIndex holds every mention as numbers, with each chunk's document and position, so that
// DocumentLinks is a few map lookups instead of a join over mentions and chunks: those two calls
// of a hi query's document walk were a quarter of its CPU on the mix corpus. Only a Resident
// store builds it (once per generation of the mentions): loading it reads every mention, which
// costs a fresh query process more than the SQL it replaces.
type mentionIndex struct {
	gen      int64
	chunk    map[string]int32 // chunk id → number
	chunkIDs []string
	chunkDoc []int32 // document number of each chunk
	chunkSeq []int64
	docIDs   []string
	// atSeq lists the chunks at each position of a document (one, unless a caller stored two
	// chunks with one seq), in id order: documentLinksSQL joins the first position back to
	// every chunk at it.
	atSeq    map[docSeq][]int32
	entities []string  // entity ids, numbered in the order first seen
	byChunk  [][]int32 // entity numbers per chunk
	byEntity [][]int32 // chunk numbers per entity
}

type docSeq struct {
	doc int32
	seq int64
}

// mentionCache keeps the mention index of a Resident store between calls.
type mentionCache struct {
	mu sync.Mutex
	mi *mentionIndex
}

// mentionIndex returns the mention index of tx's snapshot, loading it when the cached one is of
// another generation; nil (and no error) when the store's schema predates the mentions
// generation, in which case callers read SQLite.
func (s *Store) mentionIndex(ctx context.Context, tx *sql.Tx) (*mentionIndex, error) {
	if s.version < mentionsVersion {
		return nil, nil
	}
	s.mentions.mu.Lock()
	defer s.mentions.mu.Unlock()
	gen, err := generation(ctx, tx, genMentions)
	if err != nil {
		return nil, err
	}
	if s.mentions.mi != nil && s.mentions.mi.gen == gen {
		return s.mentions.mi, nil
	}
	mi, err := loadMentionIndex(ctx, tx)
	if err != nil {
		return nil, err
	}
	mi.gen = gen
	s.mentions.mi = mi
	return mi, nil
}

func loadMentionIndex(ctx context.Context, tx *sql.Tx) (*mentionIndex, error) {
	mi := &mentionIndex{chunk: map[string]int32{}, atSeq: map[docSeq][]int32{}}
	docs := map[string]int32{}
	rows, err := tx.QueryContext(ctx, `SELECT id, document_id, seq FROM chunks ORDER BY id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id, doc string
		var seq int64
		if err := rows.Scan(&id, &doc, &seq); err != nil {
			return nil, err
		}
		d, ok := docs[doc]
		if !ok {
			d = int32(len(mi.docIDs))
			docs[doc] = d
			mi.docIDs = append(mi.docIDs, doc)
		}
		k := docSeq{d, seq}
		mi.atSeq[k] = append(mi.atSeq[k], int32(len(mi.chunkIDs)))
		mi.chunk[id] = int32(len(mi.chunkIDs))
		mi.chunkIDs = append(mi.chunkIDs, id)
		mi.chunkDoc = append(mi.chunkDoc, d)
		mi.chunkSeq = append(mi.chunkSeq, seq)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows.Close()
	mi.byChunk = make([][]int32, len(mi.chunkIDs))

	entities := map[string]int32{}
	rows, err = tx.QueryContext(ctx, `SELECT chunk_id, entity_id FROM mentions`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var chunkID, entityID string
		if err := rows.Scan(&chunkID, &entityID); err != nil {
			return nil, err
		}
		c, ok := mi.chunk[chunkID]
		if !ok {
			continue // the SQL joins mentions with chunks; Apply never leaves such a row
		}
		e, ok := entities[entityID]
		if !ok {
			e = int32(len(mi.entities))
			entities[entityID] = e
			mi.entities = append(mi.entities, entityID)
			mi.byEntity = append(mi.byEntity, nil)
		}
		mi.byChunk[c] = append(mi.byChunk[c], e)
		mi.byEntity[e] = append(mi.byEntity[e], c)
	}
	return mi, rows.Err()
}

// documentLinks answers DocumentLinks as documentLinksSQL does: for every distinct entity the
// chunks mention, when it is mentioned in at most maxDocuments documents, one link per document
// to the document's first chunk (lowest seq) among those mentioning it, ordered by entity id,
// then document id (then chunk id, where SQLite leaves the order open).
func (mi *mentionIndex) documentLinks(chunkIDs []string, maxDocuments int) []graph.DocumentLink {
	seen := map[int32]bool{}
	var ents []int32
	for _, id := range chunkIDs {
		c, ok := mi.chunk[id]
		if !ok {
			continue
		}
		for _, e := range mi.byChunk[c] {
			if !seen[e] {
				seen[e] = true
				ents = append(ents, e)
			}
		}
	}
	slices.SortFunc(ents, func(a, b int32) int { return cmp.Compare(mi.entities[a], mi.entities[b]) })
	var links []graph.DocumentLink
	first := map[int32]int64{} // document → the lowest seq of a chunk mentioning the entity
	var docs []int32
	for _, e := range ents {
		clear(first)
		docs = docs[:0]
		for _, c := range mi.byEntity[e] {
			d := mi.chunkDoc[c]
			seq, ok := first[d]
			if !ok {
				docs = append(docs, d)
			}
			if !ok || mi.chunkSeq[c] < seq {
				first[d] = mi.chunkSeq[c]
			}
		}
		if len(docs) > maxDocuments {
			continue
		}
		slices.SortFunc(docs, func(a, b int32) int { return cmp.Compare(mi.docIDs[a], mi.docIDs[b]) })
		for _, d := range docs {
			for _, c := range mi.atSeq[docSeq{d, first[d]}] {
				links = append(links, graph.DocumentLink{
					EntityID: mi.entities[e], DocumentID: mi.docIDs[d], ChunkID: mi.chunkIDs[c], Documents: len(docs),
				})
			}
		}
	}
	return links
}
