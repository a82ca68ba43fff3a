package cypher

import (
	"fmt"
	"time"

	"github.com/stratarag/strata/internal/graph"
)

// fields decodes one map returned by a query. The first type mismatch is kept in err and later
// calls return zero values, so a decoder reads like a struct literal and checks err once.
// Missing keys and null values decode as zero values: Neo4j drops null properties.
type fields struct {
	m   map[string]any
	err error
}

func (f *fields) fail(key string, v any, want string) {
	if f.err == nil {
		f.err = fmt.Errorf("decode %s: got %T, want %s", key, v, want)
	}
}

func (f *fields) str(key string) string {
	switch v := f.m[key].(type) {
	case nil:
		return ""
	case string:
		return v
	default:
		f.fail(key, v, "string")
		return ""
	}
}

func (f *fields) int(key string) int64 { return f.intOr(key, 0) }

// intOr returns def when the key is missing or null.
func (f *fields) intOr(key string, def int64) int64 {
	switch v := f.m[key].(type) {
	case nil:
		return def
	case int64:
		return v
	case float64:
		return int64(v)
	default:
		f.fail(key, v, "integer")
		return def
	}
}

func (f *fields) float(key string) float64 {
	switch v := f.m[key].(type) {
	case nil:
		return 0
	case float64:
		return v
	case int64:
		return float64(v)
	default:
		f.fail(key, v, "float")
		return 0
	}
}

func (f *fields) bool(key string) bool {
	switch v := f.m[key].(type) {
	case nil:
		return false
	case bool:
		return v
	default:
		f.fail(key, v, "boolean")
		return false
	}
}

func (f *fields) time(key string) time.Time {
	switch v := f.m[key].(type) {
	case nil:
		return time.Time{}
	case time.Time:
		return v
	default:
		f.fail(key, v, "datetime")
		return time.Time{}
	}
}

func (f *fields) list(key string) []any {
	switch v := f.m[key].(type) {
	case nil:
		return nil
	case []any:
		return v
	default:
		f.fail(key, v, "list")
		return nil
	}
}

func (f *fields) strs(key string) []string {
	l := f.list(key)
	if l == nil {
		return nil
	}
	out := make([]string, len(l))
	for i, v := range l {
		s, ok := v.(string)
		if !ok {
			f.fail(key, v, "list of strings")
			return nil
		}
		out[i] = s
	}
	return out
}

func (f *fields) ints(key string) []int64 {
	l := f.list(key)
	if l == nil {
		return nil
	}
	out := make([]int64, len(l))
	for i, v := range l {
		n, ok := v.(int64)
		if !ok {
			f.fail(key, v, "list of integers")
			return nil
		}
		out[i] = n
	}
	return out
}

// vector decodes an embedding stored as LIST<FLOAT>; nil when the node has none.
func (f *fields) vector(key string) []float32 {
	l := f.list(key)
	if len(l) == 0 {
		return nil
	}
	out := make([]float32, len(l))
	for i, v := range l {
		switch x := v.(type) {
		case float64:
			out[i] = float32(x)
		case int64:
			out[i] = float32(x)
		default:
			f.fail(key, v, "list of floats")
			return nil
		}
	}
	return out
}

// sub returns a decoder for a nested map.
func (f *fields) sub(key string) *fields {
	switch v := f.m[key].(type) {
	case nil:
		return &fields{m: map[string]any{}}
	case map[string]any:
		return &fields{m: v}
	default:
		f.fail(key, v, "map")
		return &fields{m: map[string]any{}}
	}
}

// maps decodes a list of maps, e.g. the rows of a COLLECT subquery.
func (f *fields) maps(key string) []map[string]any {
	l := f.list(key)
	out := make([]map[string]any, 0, len(l))
	for _, v := range l {
		m, ok := v.(map[string]any)
		if !ok {
			f.fail(key, v, "list of maps")
			return nil
		}
		out = append(out, m)
	}
	return out
}

// The decoders below read the map projections that the read_* queries return.

func decodeDocument(m map[string]any) (graph.Document, error) {
	f := fields{m: m}
	d := graph.Document{
		ID:         f.str("id"),
		Title:      f.str("title"),
		Source:     f.str("source"),
		SHA256:     f.str("sha256"),
		Metadata:   f.str("metadata"),
		IngestedAt: f.time("ingestedAt"),
	}
	return d, f.err
}

func decodeChunk(m map[string]any) (graph.Chunk, error) {
	f := fields{m: m}
	c := graph.Chunk{
		ID:         f.str("id"),
		DocumentID: f.str("documentId"),
		Seq:        int(f.int("seq")),
		Text:       f.str("text"),
		Tokens:     int(f.int("tokens")),
		Embedding:  f.vector("embedding"),
		FirstPage:  int(f.int("firstPage")),
		LastPage:   int(f.int("lastPage")),
	}
	return c, f.err
}

func decodeEntity(m map[string]any) (graph.Entity, error) {
	f := fields{m: m}
	e := graph.Entity{
		ID:          f.str("id"),
		Name:        f.str("name"),
		Type:        f.str("type"),
		Description: f.str("description"),
		Layer:       int(f.int("layer")),
		Embedding:   f.vector("embedding"),
		ComponentID: f.intOr("componentId", -1),
		Degree:      int(f.int("degree")),
	}
	return e, f.err
}

func decodeRelation(m map[string]any) (graph.Relation, error) {
	f := fields{m: m}
	r := graph.Relation{
		Source:      f.str("source"),
		Target:      f.str("target"),
		Description: f.str("description"),
		Weight:      f.float("weight"),
		ChunkIDs:    f.strs("chunkIds"),
	}
	return r, f.err
}

func decodeCommunity(m map[string]any) (graph.Community, error) {
	f := fields{m: m}
	c := graph.Community{
		ID:          f.str("id"),
		Level:       int(f.int("level")),
		CommunityID: f.int("communityId"),
		ParentID:    f.str("parentId"),
		Title:       f.str("title"),
		Summary:     f.str("summary"),
		Report:      f.str("report"),
		Rating:      f.float("rating"),
		Size:        int(f.int("size")),
		Embedding:   f.vector("embedding"),
	}
	return c, f.err
}

// decodeColumn decodes the map in column col of every row.
func decodeColumn[T any](rows []map[string]any, col string, decode func(map[string]any) (T, error)) ([]T, error) {
	out := make([]T, 0, len(rows))
	for _, row := range rows {
		m, ok := row[col].(map[string]any)
		if !ok {
			return nil, fmt.Errorf("decode %s: got %T, want map", col, row[col])
		}
		v, err := decode(m)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// decodeList decodes the maps in a list column of one row.
func decodeList[T any](f *fields, key string, decode func(map[string]any) (T, error)) ([]T, error) {
	ms := f.maps(key)
	if f.err != nil {
		return nil, f.err
	}
	out := make([]T, 0, len(ms))
	for _, m := range ms {
		v, err := decode(m)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}
