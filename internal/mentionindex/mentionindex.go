// Package mentionindex keeps every mention of a store (which chunk names which entity, with
// each chunk's document and position) in memory as numbers, so that graph.Store.DocumentLinks,
// which hi and local modes call for every query, is a few map lookups instead of a join over
// mentions and chunks in the database. Stores build one for a long-lived reader (strata
// serve) and rebuild it when their mentions change; loading reads every mention, which costs a
// one-off query process more than the join it replaces.
package mentionindex

import (
	"cmp"
	"maps"
	"slices"

	"github.com/stratarag/strata/internal/graph"
)

// Index holds the mentions of a store. Build one with a Builder.
type Index struct {
	chunk    map[string]int32 // chunk id → number
	chunkIDs []string
	chunkDoc []int32 // document number of each chunk
	chunkSeq []int64
	docIDs   []string
	// atSeq lists the chunks at each position of a document (one, unless a caller stored two
	// chunks with one seq), in the order they were added: the stores' own queries join the
	// first position back to every chunk at it.
	atSeq    map[docSeq][]int32
	entities []string  // entity ids, numbered in the order first seen
	byChunk  [][]int32 // entity numbers per chunk
	byEntity [][]int32 // chunk numbers per entity
	entity   map[string]int32
	docs     map[string]int32
}

type docSeq struct {
	doc int32
	seq int64
}

// Builder fills an Index: every chunk first, then the mentions.
type Builder struct{ ix *Index }

// NewBuilder returns a Builder of an empty Index.
func NewBuilder() *Builder {
	return &Builder{ix: &Index{
		chunk:  map[string]int32{},
		atSeq:  map[docSeq][]int32{},
		entity: map[string]int32{},
		docs:   map[string]int32{},
	}}
}

// Grow makes room for chunks more chunks and entities more entities, so that a builder that
// knows its sizes (a snapshot read back) does not grow its maps as it goes: a third of building
// mix's index of 32 k mentions.
func (b *Builder) Grow(chunks, entities int) {
	ix := b.ix
	grown := func(m map[string]int32, n int) map[string]int32 {
		g := make(map[string]int32, len(m)+n)
		maps.Copy(g, m)
		return g
	}
	ix.chunk, ix.entity = grown(ix.chunk, chunks), grown(ix.entity, entities)
	ix.chunkIDs = slices.Grow(ix.chunkIDs, chunks)
	ix.chunkDoc = slices.Grow(ix.chunkDoc, chunks)
	ix.chunkSeq = slices.Grow(ix.chunkSeq, chunks)
	ix.byChunk = slices.Grow(ix.byChunk, chunks)
	ix.entities = slices.Grow(ix.entities, entities)
	ix.byEntity = slices.Grow(ix.byEntity, entities)
}

// AddChunk adds chunk id of document doc at position seq. Chunks at one position of a document
// keep the order they are added in (stores add them by id).
func (b *Builder) AddChunk(id, doc string, seq int64) {
	ix := b.ix
	d, ok := ix.docs[doc]
	if !ok {
		d = int32(len(ix.docIDs))
		ix.docs[doc] = d
		ix.docIDs = append(ix.docIDs, doc)
	}
	c := int32(len(ix.chunkIDs))
	k := docSeq{d, seq}
	ix.atSeq[k] = append(ix.atSeq[k], c)
	ix.chunk[id] = c
	ix.chunkIDs = append(ix.chunkIDs, id)
	ix.chunkDoc = append(ix.chunkDoc, d)
	ix.chunkSeq = append(ix.chunkSeq, seq)
	ix.byChunk = append(ix.byChunk, nil)
}

// AddMention records that chunk chunkID mentions entity entityID. A mention of a chunk not
// added is ignored: the stores join mentions with chunks, and Apply never leaves such a row.
func (b *Builder) AddMention(chunkID, entityID string) {
	ix := b.ix
	c, ok := ix.chunk[chunkID]
	if !ok {
		return
	}
	e, ok := ix.entity[entityID]
	if !ok {
		e = int32(len(ix.entities))
		ix.entity[entityID] = e
		ix.entities = append(ix.entities, entityID)
		ix.byEntity = append(ix.byEntity, nil)
	}
	ix.byChunk[c] = append(ix.byChunk[c], e)
	ix.byEntity[e] = append(ix.byEntity[e], c)
}

// Index returns the index built; the Builder must not be used after.
func (b *Builder) Index() *Index {
	ix := b.ix
	b.ix = nil
	ix.docs = nil // only building needs it
	return ix
}

// DocumentLinks answers graph.Store.DocumentLinks: for every distinct entity the chunks mention,
// when it is mentioned in at most maxDocuments documents, one link per document to the
// document's first chunk (lowest seq) among those mentioning it, ordered by entity id, then
// document id, then the order the chunks at that position were added in.
func (ix *Index) DocumentLinks(chunkIDs []string, maxDocuments int) []graph.DocumentLink {
	seen := map[int32]bool{}
	var ents []int32
	for _, id := range chunkIDs {
		c, ok := ix.chunk[id]
		if !ok {
			continue
		}
		for _, e := range ix.byChunk[c] {
			if !seen[e] {
				seen[e] = true
				ents = append(ents, e)
			}
		}
	}
	slices.SortFunc(ents, func(a, b int32) int { return cmp.Compare(ix.entities[a], ix.entities[b]) })
	var links []graph.DocumentLink
	first := map[int32]int64{} // document → the lowest seq of a chunk mentioning the entity
	var docs []int32
	for _, e := range ents {
		clear(first)
		docs = docs[:0]
		for _, c := range ix.byEntity[e] {
			d := ix.chunkDoc[c]
			seq, ok := first[d]
			if !ok {
				docs = append(docs, d)
			}
			if !ok || ix.chunkSeq[c] < seq {
				first[d] = ix.chunkSeq[c]
			}
		}
		if len(docs) > maxDocuments {
			continue
		}
		slices.SortFunc(docs, func(a, b int32) int { return cmp.Compare(ix.docIDs[a], ix.docIDs[b]) })
		for _, d := range docs {
			for _, c := range ix.atSeq[docSeq{d, first[d]}] {
				links = append(links, graph.DocumentLink{
					EntityID: ix.entities[e], DocumentID: ix.docIDs[d], ChunkID: ix.chunkIDs[c], Documents: len(docs),
				})
			}
		}
	}
	return links
}

// ChunkHits is a chunk and how many of the entities asked about it mentions.
type ChunkHits struct {
	ChunkID string
	Hits    int
}

// TopChunks returns the chunks that mention any of entityIDs, each id counted once, by how many
// of them they mention, most first, then by chunk id: at most limit. It is the chunk ranking of
// the stores' local neighbourhood (graph.Store.ExpandLocal).
func (ix *Index) TopChunks(entityIDs []string, limit int) []ChunkHits {
	if limit <= 0 {
		return nil
	}
	hits := map[int32]int{}
	seen := map[int32]bool{}
	for _, id := range entityIDs {
		e, ok := ix.entity[id]
		if !ok || seen[e] {
			continue
		}
		seen[e] = true
		counted := map[int32]bool{}
		for _, c := range ix.byEntity[e] {
			if !counted[c] {
				counted[c] = true
				hits[c]++
			}
		}
	}
	out := make([]ChunkHits, 0, len(hits))
	for c, n := range hits {
		out = append(out, ChunkHits{ChunkID: ix.chunkIDs[c], Hits: n})
	}
	slices.SortFunc(out, func(a, b ChunkHits) int {
		return cmp.Or(cmp.Compare(b.Hits, a.Hits), cmp.Compare(a.ChunkID, b.ChunkID))
	})
	return out[:min(limit, len(out))]
}
