package cypher

import (
	"context"
	"sync"

	"github.com/stratarag/strata/internal/graph"
)

// metaDocumentGeneration is the StrataMeta key of the counter that Apply bumps whenever it
// writes or deletes documents (generationsMoved).
const metaDocumentGeneration = "documents.generation"

// Bounds of a resident store's record copies: a query reads tens of chunks and documents, a
// long-lived server the ones its questions lead to; past the bound a copy starts over rather
// than grow with the corpus (chunks carry their text and embedding, a few KB each).
const (
	residentChunks    = 10000
	residentDocuments = 10000
)

// recordCache is a resident store's copy of the records (chunks or documents) that lookups by
// id returned, for one generation of the counter that every write of them moves on. hi mode
// reads chunks three times and documents twice per query, each a round trip on Neo4j; the same
// records come back across questions about the same documents.
type recordCache[T any] struct {
	mu   sync.Mutex
	gen  string
	byID map[string]T
}

// cachedByIDs answers a lookup by ids as read does (records in the order of ids, missing ones
// skipped), from c where it holds them and with one read of the rest, which c keeps, up to max
// records. keys name the generation counters that every write of the records moves on.
func cachedByIDs[T any](ctx context.Context, s *Store, c *recordCache[T], keys []string, max int, ids []string,
	read func(ctx context.Context, ids []string) ([]T, error), id func(T) string) ([]T, error) {
	vals, err := s.generations(ctx)
	if err != nil {
		return nil, err
	}
	var gen string
	for _, k := range keys {
		gen += vals[k] + "/"
	}
	found := make(map[string]T, len(ids))
	var missing []string
	c.mu.Lock()
	if c.byID == nil || c.gen != gen {
		c.gen, c.byID = gen, map[string]T{}
	}
	for _, k := range ids {
		if v, ok := c.byID[k]; ok {
			found[k] = v
		} else {
			missing = append(missing, k)
		}
	}
	c.mu.Unlock()
	if len(missing) > 0 {
		items, err := read(ctx, missing)
		if err != nil {
			return nil, err
		}
		c.mu.Lock()
		if c.gen == gen {
			if len(c.byID)+len(items) > max {
				c.byID = map[string]T{}
			}
			for _, it := range items {
				c.byID[id(it)] = it
			}
		}
		c.mu.Unlock()
		for _, it := range items {
			found[id(it)] = it
		}
	}
	return inOrder(ids, found), nil
}

// Chunks implements graph.Store; a resident store keeps the chunks it read (recordCache).
func (s *Store) Chunks(ctx context.Context, ids []string) ([]graph.Chunk, error) {
	if s.resident && len(ids) > 0 {
		return cachedByIDs(ctx, s, &s.chunkCache, []string{metaChunkGeneration}, residentChunks, ids, s.readChunks, chunkID)
	}
	return s.readChunks(ctx, ids)
}

// Documents implements graph.Store; a resident store keeps the documents it read
// (recordCache).
func (s *Store) Documents(ctx context.Context, ids []string) ([]graph.Document, error) {
	if s.resident && len(ids) > 0 {
		return cachedByIDs(ctx, s, &s.documentCache, []string{metaDocumentGeneration}, residentDocuments, ids, s.readDocuments, documentID)
	}
	return s.readDocuments(ctx, ids)
}

func chunkID(c graph.Chunk) string       { return c.ID }
func documentID(d graph.Document) string { return d.ID }

// cachedEntityTexts answers EntityTexts from a resident store's copy of the entity records.
func (s *Store) cachedEntityTexts(ctx context.Context, ids []string) ([]graph.Entity, error) {
	return cachedByIDs(ctx, s, &s.entityCache, []string{metaEntityGraphGeneration, metaComponentGeneration}, residentEntities,
		ids, s.EntityTexts, func(e graph.Entity) string { return e.ID })
}

// residentEntityRecords answers Entities from the copy of the entity records, with each
// embedding from the copy of the entity vectors, which holds every stored one; ok is false
// when there is no such copy (a vector index is missing) and the database must answer.
func (s *Store) residentEntityRecords(ctx context.Context, ids []string) (entities []graph.Entity, ok bool, err error) {
	entityDim, _, ok, err := s.residentDims(ctx)
	if err != nil || !ok {
		return nil, false, err
	}
	if entities, err = s.cachedEntityTexts(ctx, ids); err != nil {
		return nil, false, err
	}
	err = s.withResidentVectors(ctx, graph.EntityEmbedding, entityDim, func(v *residentVectors) {
		for i := range entities {
			entities[i].Embedding = v.embedding(entities[i].ID)
		}
	})
	return entities, err == nil, err
}
