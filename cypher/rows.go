package cypher

import (
	"sort"

	"github.com/stratarag/strata/internal/graph"
)

// The functions below turn batch items into the maps that the write_* statements UNWIND. Keys
// match the row.<key> references in the .cypher files.

// vectorParam converts an embedding to LIST<FLOAT> (float64 is what Bolt sends as a float
// list). No embedding becomes null, which removes the property and takes the node out of the
// vector index; an empty list would be stored instead.
func vectorParam(v []float32) any {
	if len(v) == 0 {
		return nil
	}
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

// stringsParam never sends null, so that relations always carry a chunkIds list.
func stringsParam(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// documentRow sends IngestedAt in UTC: the driver names a time's zone by its Location, and
// time.Local's name, "Local", is no zone Neo4j knows.
func documentRow(d graph.Document) map[string]any {
	return map[string]any{
		"id":         d.ID,
		"title":      d.Title,
		"source":     d.Source,
		"sha256":     d.SHA256,
		"metadata":   d.Metadata,
		"ingestedAt": d.IngestedAt.UTC(),
	}
}

func chunkRow(c graph.Chunk) map[string]any {
	return map[string]any{
		"id":         c.ID,
		"documentId": c.DocumentID,
		"seq":        int64(c.Seq),
		"text":       c.Text,
		"tokens":     int64(c.Tokens),
		"embedding":  vectorParam(c.Embedding),
		"firstPage":  pageParam(c.FirstPage),
		"lastPage":   pageParam(c.LastPage),
	}
}

// pageParam is a page number, or null (the property is not set) for 0, no page: a chunk of a
// document without pages has no page properties.
func pageParam(p int) any {
	if p <= 0 {
		return nil
	}
	return int64(p)
}

// entityRow leaves out ComponentID and Degree: they belong to ComputeComponents. A new entity
// starts at -1 and 0, an updated one keeps its values (see write_entities.cypher).
func entityRow(e graph.Entity) map[string]any {
	return map[string]any{
		"id":          e.ID,
		"name":        e.Name,
		"type":        e.Type,
		"description": e.Description,
		"layer":       int64(e.Layer),
		"embedding":   vectorParam(e.Embedding),
	}
}

// relationRow stores the relation from the smaller id to the larger whatever order the caller
// used, so that a pair of entities has one RELATED relationship.
func relationRow(r graph.Relation) map[string]any {
	k := graph.NewRelationKey(r.Source, r.Target)
	return map[string]any{
		"source":      k.Source,
		"target":      k.Target,
		"description": r.Description,
		"weight":      r.Weight,
		"chunkIds":    stringsParam(r.ChunkIDs),
		// Evidence is stored as three lists of one item per chunk (relationship properties
		// cannot hold maps); read_relation_evidence.cypher zips them back.
		"evidenceChunkIds":     evidenceChunkIDs(r.Evidence),
		"evidenceDescriptions": evidenceDescriptions(r.Evidence),
		"evidenceWeights":      evidenceWeights(r.Evidence),
		"addEvidence":          r.AddEvidence,
	}
}

func evidenceChunkIDs(evs []graph.RelationEvidence) []string {
	out := make([]string, len(evs))
	for i, ev := range evs {
		out[i] = ev.ChunkID
	}
	return out
}

func evidenceDescriptions(evs []graph.RelationEvidence) []string {
	out := make([]string, len(evs))
	for i, ev := range evs {
		out[i] = ev.Description
	}
	return out
}

func evidenceWeights(evs []graph.RelationEvidence) []float64 {
	out := make([]float64, len(evs))
	for i, ev := range evs {
		out[i] = ev.Weight
	}
	return out
}

func mentionRow(m graph.Mention) map[string]any {
	return map[string]any{
		"chunkId": m.ChunkID, "entityId": m.EntityID, "name": m.Name, "type": m.Type,
		"description": m.Description, "subject": m.Subject,
	}
}

func mentionKeyRow(m graph.MentionKey) map[string]any {
	return map[string]any{"chunkId": m.ChunkID, "entityId": m.EntityID}
}

func relationKeyRow(k graph.RelationKey) map[string]any {
	k = graph.NewRelationKey(k.Source, k.Target)
	return map[string]any{"source": k.Source, "target": k.Target}
}

func summaryLinkRow(l graph.SummaryLink) map[string]any {
	return map[string]any{
		"member":      l.Member,
		"summary":     l.Summary,
		"description": l.Description,
		"weight":      l.Weight,
	}
}

func communityReportRow(c graph.Community) map[string]any {
	return map[string]any{
		"id":        c.ID,
		"title":     c.Title,
		"summary":   c.Summary,
		"report":    c.Report,
		"rating":    c.Rating,
		"embedding": vectorParam(c.Embedding),
	}
}

// metaRows sorts the keys so that the statement is the same on every run.
func metaRows(meta map[string]string) []map[string]any {
	keys := make([]string, 0, len(meta))
	for k := range meta {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	rows := make([]map[string]any, len(keys))
	for i, k := range keys {
		rows[i] = map[string]any{"key": k, "value": meta[k]}
	}
	return rows
}

// rowsOf maps items to rows.
func rowsOf[T any](items []T, row func(T) map[string]any) []map[string]any {
	out := make([]map[string]any, len(items))
	for i, it := range items {
		out[i] = row(it)
	}
	return out
}

// chunked splits rows into slices of at most n.
func chunked[T any](rows []T, n int) [][]T {
	var out [][]T
	for len(rows) > n {
		out = append(out, rows[:n])
		rows = rows[n:]
	}
	if len(rows) > 0 {
		out = append(out, rows)
	}
	return out
}
