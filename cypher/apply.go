package cypher

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/stratarag/strata/internal/graph"
)

// Apply writes the batch in one write transaction: all of it or none of it. Vector indexes that
// the batch's embeddings need are created first (schema changes cannot share the transaction);
// an embedding whose dimension differs from its index fails the batch before anything is
// written. References to items that exist neither in the store nor in the batch (a chunk's
// document, the ends of a relation, mention or summary link, a community report's community)
// fail the batch with their ids instead of being dropped silently.
func (s *Store) Apply(ctx context.Context, b graph.Batch) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if b.Empty() {
		return nil
	}
	dims, err := batchDims(&b)
	if err != nil {
		return fmt.Errorf("cypher: apply: %w", err)
	}
	if d, err := strconv.Atoi(b.Meta[graph.MetaEmbeddingDims]); err == nil && d > 0 {
		// The batch that records the embedding model creates all of its indexes at once:
		// a schema change empties the server's plan cache, and later in an ingest that would
		// replan every statement already run.
		for _, idx := range vectorIndexes {
			if _, ok := dims[idx]; !ok {
				dims[idx] = d
			}
		}
	}
	if err := s.checkLease(); err != nil {
		return err
	}
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	if err := s.ensureVectorIndexes(ctx, dims); err != nil {
		return fmt.Errorf("cypher: apply: %w", err)
	}
	if err := s.run.write(ctx, func(t tx) error { return s.applyTx(ctx, t, &b) }); err != nil {
		return fmt.Errorf("cypher: apply: %w", err)
	}
	return nil
}

// applyTx is the body of Apply's transaction; the driver may run it more than once.
func (s *Store) applyTx(ctx context.Context, t tx, b *graph.Batch) error {
	if err := s.checkReferences(ctx, t, b); err != nil {
		return err
	}
	relink, err := s.deleteChunks(ctx, t, b.DeleteChunks)
	if err != nil {
		return err
	}
	for _, part := range chunked(graph.UniqueIDs(b.DeleteDocuments), s.batchSize) {
		if _, err := t.run(ctx, s.q.get(qDeleteDocuments), map[string]any{"ids": part}); err != nil {
			return err
		}
		for _, id := range part {
			delete(relink, id) // no chain left to relink
		}
	}
	if err := s.unwind(ctx, t, qDeleteMentions, rowsOf(b.DeleteMentions, mentionKeyRow)); err != nil {
		return err
	}
	if err := s.unwind(ctx, t, qDeleteRelations, rowsOf(b.DeleteRelations, relationKeyRow)); err != nil {
		return err
	}
	for _, part := range chunked(graph.UniqueIDs(b.DeleteEntities), s.batchSize) {
		if _, err := t.run(ctx, s.q.get(qDeleteEntities), map[string]any{"ids": part}); err != nil {
			return err
		}
	}
	if b.ClearSummaries {
		if _, err := t.run(ctx, s.q.get(qClearSummaries), nil); err != nil {
			return err
		}
	}
	if keys := generationsMoved(b); len(keys) > 0 {
		if _, err := t.run(ctx, s.q.get(qBumpGeneration), map[string]any{"keys": keys}); err != nil {
			return err
		}
	}
	if err := s.unwind(ctx, t, qWriteDocuments, rowsOf(b.Documents, documentRow)); err != nil {
		return err
	}
	if err := s.writeChunks(ctx, t, b.Chunks, relink); err != nil {
		return err
	}
	steps := []struct {
		name string
		rows []map[string]any
	}{
		{qWriteEntities, rowsOf(b.Entities, entityRow)},
		{qWriteRelations, rowsOf(b.Relations, relationRow)},
		{qWriteMentions, rowsOf(b.Mentions, mentionRow)},
		{qWriteSummaryLinks, rowsOf(b.SummaryLinks, summaryLinkRow)},
		{qWriteCommunityReports, rowsOf(b.Communities, communityReportRow)},
		{qWriteMeta, metaRows(b.Meta)},
	}
	for _, st := range steps {
		if err := s.unwind(ctx, t, st.name, st.rows); err != nil {
			return err
		}
	}
	return nil
}

// deleteChunks deletes chunks and returns the documents that lost one.
func (s *Store) deleteChunks(ctx context.Context, t tx, ids []string) (map[string]bool, error) {
	docs := map[string]bool{}
	for _, part := range chunked(graph.UniqueIDs(ids), s.batchSize) {
		out, err := t.run(ctx, s.q.get(qDeleteChunks), map[string]any{"ids": part})
		if err != nil {
			return nil, err
		}
		for _, rec := range out {
			f := fields{m: rec}
			for _, id := range f.strs("documentIds") {
				docs[id] = true
			}
			if f.err != nil {
				return nil, fmt.Errorf("%s: %w", qDeleteChunks, f.err)
			}
		}
	}
	return docs, nil
}

// writeChunks upserts chunks, then rebuilds the NEXT chains of every document that gained or
// lost a chunk (docs holds those that lost one to deleteChunks), since a chain depends on all of
// a document's chunks, not only the new ones.
func (s *Store) writeChunks(ctx context.Context, t tx, chunks []graph.Chunk, docs map[string]bool) error {
	if len(chunks) == 0 && len(docs) == 0 {
		return nil
	}
	for _, c := range chunks {
		docs[c.DocumentID] = true
	}
	for _, rows := range chunked(rowsOf(chunks, chunkRow), s.batchSize) {
		out, err := t.run(ctx, s.q.get(qWriteChunks), map[string]any{"rows": rows})
		if err != nil {
			return err
		}
		for _, rec := range out {
			f := fields{m: rec}
			for _, id := range f.strs("previousDocumentIds") {
				docs[id] = true
			}
			if f.err != nil {
				return fmt.Errorf("%s: %w", qWriteChunks, f.err)
			}
		}
	}
	ids := sortedKeys(docs)
	for _, part := range chunked(ids, s.batchSize) {
		p := map[string]any{"documentIds": part}
		if _, err := t.run(ctx, s.q.get(qWriteNextUnlink), p); err != nil {
			return err
		}
		if _, err := t.run(ctx, s.q.get(qWriteNextLink), p); err != nil {
			return err
		}
	}
	return nil
}

// unwind runs an UNWIND $rows statement over rows in slices of the configured batch size.
func (s *Store) unwind(ctx context.Context, t tx, name string, rows []map[string]any) error {
	for _, part := range chunked(rows, s.batchSize) {
		if _, err := t.run(ctx, s.q.get(name), map[string]any{"rows": part}); err != nil {
			return err
		}
	}
	return nil
}

// checkReferences fails when the batch refers to nodes that neither it nor the store holds.
func (s *Store) checkReferences(ctx context.Context, t tx, b *graph.Batch) error {
	docs := idSet(b.Documents, func(d graph.Document) string { return d.ID })
	chunks := idSet(b.Chunks, func(c graph.Chunk) string { return c.ID })
	entities := idSet(b.Entities, func(e graph.Entity) string { return e.ID })
	needDocs, needChunks, needEntities, needCommunities := map[string]bool{}, map[string]bool{}, map[string]bool{}, map[string]bool{}
	need := func(set, have map[string]bool, id string) {
		if !have[id] {
			set[id] = true
		}
	}
	for _, c := range b.Chunks {
		need(needDocs, docs, c.DocumentID)
	}
	for _, r := range b.Relations {
		need(needEntities, entities, r.Source)
		need(needEntities, entities, r.Target)
		for _, ev := range r.Evidence {
			need(needChunks, chunks, ev.ChunkID)
		}
	}
	for _, m := range b.Mentions {
		need(needChunks, chunks, m.ChunkID)
		need(needEntities, entities, m.EntityID)
	}
	for _, l := range b.SummaryLinks {
		need(needEntities, entities, l.Member)
		need(needEntities, entities, l.Summary)
	}
	for _, c := range b.Communities {
		needCommunities[c.ID] = true
	}
	for _, check := range []struct {
		name, what string
		ids        map[string]bool
	}{
		{qMissingCommunities, "community reports name communities that do not exist (communities are made by ComputeCommunities)", needCommunities},
		{qMissingDocuments, "chunks refer to documents that do not exist", needDocs},
		{qMissingChunks, "mentions or relation evidence refer to chunks that do not exist", needChunks},
		{qMissingEntities, "relations, mentions or summary links refer to entities that do not exist", needEntities},
	} {
		if len(check.ids) == 0 {
			continue
		}
		var missing []string
		for _, part := range chunked(sortedKeys(check.ids), s.batchSize) {
			rows, err := t.run(ctx, s.q.get(check.name), map[string]any{"ids": part})
			if err != nil {
				return err
			}
			for _, row := range rows {
				f := fields{m: row}
				missing = append(missing, f.str("id"))
				if f.err != nil {
					return fmt.Errorf("%s: %w", check.name, f.err)
				}
			}
		}
		if len(missing) > 0 {
			return fmt.Errorf("%s: %s", check.what, listIDs(missing))
		}
	}
	return nil
}

// batchDims returns the embedding dimension per vector index, and fails when the batch mixes
// dimensions within one index.
func batchDims(b *graph.Batch) (map[graph.VectorIndex]int, error) {
	dims := map[graph.VectorIndex]int{}
	first := map[graph.VectorIndex]string{}
	add := func(idx graph.VectorIndex, what string, v []float32) error {
		if len(v) == 0 {
			return nil
		}
		if d, ok := dims[idx]; ok && d != len(v) {
			return fmt.Errorf("%s has a %d-dimensional embedding but %s a %d-dimensional one", what, len(v), first[idx], d)
		}
		if _, ok := dims[idx]; !ok {
			dims[idx], first[idx] = len(v), what
		}
		return nil
	}
	for _, c := range b.Chunks {
		if err := add(graph.ChunkEmbedding, "chunk "+c.ID, c.Embedding); err != nil {
			return nil, err
		}
	}
	for _, e := range b.Entities {
		if err := add(graph.EntityEmbedding, "entity "+e.ID, e.Embedding); err != nil {
			return nil, err
		}
	}
	for _, c := range b.Communities {
		if err := add(graph.CommunityEmbedding, "community "+c.ID, c.Embedding); err != nil {
			return nil, err
		}
	}
	return dims, nil
}

func idSet[T any](items []T, id func(T) string) map[string]bool {
	set := make(map[string]bool, len(items))
	for _, it := range items {
		set[id(it)] = true
	}
	return set
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// listIDs quotes up to ten ids for an error message.
func listIDs(ids []string) string {
	const limit = 10
	quoted := make([]string, 0, min(len(ids), limit))
	for _, id := range ids[:min(len(ids), limit)] {
		quoted = append(quoted, fmt.Sprintf("%q", id))
	}
	s := strings.Join(quoted, ", ")
	if len(ids) > limit {
		s += fmt.Sprintf(" and %d more", len(ids)-limit)
	}
	return s
}

// generationsMoved lists the StrataMeta counters that b moves on: metaEntityGraphGeneration
// makes the GDS projection of the graph as it was stale (see projection); metaChunkGeneration,
// metaMentionGeneration, metaCommunityGeneration and metaDocumentGeneration make a resident
// reader's copies of the chunks, the mentions, the community lists and the documents stale
// (vectorcache.go, recordcache.go, mentions.go, communitycache.go). Deleting a document, chunk
// or entity deletes its mentions too.
func generationsMoved(b *graph.Batch) []string {
	var keys []string
	if len(b.Entities)+len(b.Relations)+len(b.SummaryLinks)+len(b.DeleteEntities)+len(b.DeleteRelations) > 0 || b.ClearSummaries {
		keys = append(keys, metaEntityGraphGeneration)
	}
	if len(b.Chunks)+len(b.DeleteChunks)+len(b.DeleteDocuments) > 0 {
		keys = append(keys, metaChunkGeneration)
	}
	if len(b.Chunks)+len(b.DeleteChunks)+len(b.DeleteDocuments)+len(b.Mentions)+len(b.DeleteMentions)+len(b.DeleteEntities) > 0 {
		keys = append(keys, metaMentionGeneration)
	}
	if len(b.Communities) > 0 {
		keys = append(keys, metaCommunityGeneration)
	}
	if len(b.Documents)+len(b.DeleteDocuments) > 0 {
		keys = append(keys, metaDocumentGeneration)
	}
	return keys
}
