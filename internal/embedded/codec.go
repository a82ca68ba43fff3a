package embedded

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/stratarag/strata/internal/graph"
)

// encodeVector stores a vector as little-endian float32s; nil for an empty vector, so that "no
// embedding" is NULL in the database.
func encodeVector(v []float32) []byte {
	if len(v) == 0 {
		return nil
	}
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// decodeVector is the inverse of encodeVector.
func decodeVector(b []byte) ([]float32, error) {
	if len(b) == 0 {
		return nil, nil
	}
	if len(b)%4 != 0 {
		return nil, fmt.Errorf("embedding of %d bytes is not a float32 vector", len(b))
	}
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v, nil
}

// timeLayout stores times as UTC text with nanoseconds; it sorts like the times it holds and
// round-trips the zero time.
const timeLayout = time.RFC3339Nano

func encodeTime(t time.Time) string { return t.UTC().Format(timeLayout) }

func decodeTime(s string) (time.Time, error) {
	t, err := time.Parse(timeLayout, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("stored time %q: %w", s, err)
	}
	return t.UTC(), nil
}

// encodeStrings stores a string list as a JSON array. Lists of ids are also passed to queries this
// way and expanded with json_each, which keeps statements fixed whatever the number of ids and
// stays clear of SQLite's variable limit.
func encodeStrings(ss []string) string {
	if len(ss) == 0 {
		return "[]"
	}
	b, _ := json.Marshal(ss) // cannot fail for strings
	return string(b)
}

// encodeRelationKeys passes relation keys to a query as a JSON array of [source, target] pairs,
// each in stored order (source < target), for json_each as encodeStrings passes ids.
func encodeRelationKeys(keys []graph.RelationKey) string {
	pairs := make([][2]string, len(keys))
	for i, k := range keys {
		k = graph.NewRelationKey(k.Source, k.Target)
		pairs[i] = [2]string{k.Source, k.Target}
	}
	b, _ := json.Marshal(pairs) // cannot fail for strings
	return string(b)
}

// decodeStrings is the inverse of encodeStrings; an empty list decodes to nil.
func decodeStrings(s string) ([]string, error) {
	var ss []string
	if err := json.Unmarshal([]byte(s), &ss); err != nil {
		return nil, fmt.Errorf("stored list %q: %w", s, err)
	}
	if len(ss) == 0 {
		return nil, nil
	}
	return ss, nil
}
