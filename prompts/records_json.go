package prompts

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// fromJSON accepts extraction answers written as JSON, which some models produce whatever the
// prompt says: {"entities":[{"name","type","description"}],"relationships":[{"source","target",
// "description","strength"}]} or a bare array of such objects with a "kind"/"type" hint, and lists
// of the line format's lines ({"entities":["NAME | TYPE"],"relationships":["SOURCE | TARGET |
// STRENGTH"]}), as a model asked for lines may wrap them. It reports whether the answer was JSON
// of that shape.
func (out *Records) fromJSON(s string) bool {
	js, err := ExtractJSON(s)
	if err != nil {
		return false
	}
	var v any
	if json.Unmarshal([]byte(js), &v) != nil {
		return false
	}
	var ents, rels []any
	switch t := v.(type) {
	case map[string]any:
		ents, _ = pick(t, "entities", "nodes").([]any)
		rels, _ = pick(t, "relationships", "relations", "edges").([]any)
		if ents == nil && rels == nil {
			return false
		}
	case []any:
		for _, item := range t {
			m, ok := item.(map[string]any)
			if !ok {
				out.Dropped++
				continue
			}
			if pick(m, "source", "src", "from") != nil {
				rels = append(rels, m)
			} else {
				ents = append(ents, m)
			}
		}
		if len(ents)+len(rels) == 0 {
			return false
		}
	default:
		return false
	}
	for _, item := range ents {
		if line, ok := item.(string); ok {
			out.addLine(splitLine(line), "entity")
			continue
		}
		m, ok := item.(map[string]any)
		if !ok {
			out.Dropped++
			continue
		}
		e, ok := entityFromFields([]string{
			str(pick(m, "name", "entity", "entity_name", "title")),
			str(pick(m, "type", "entity_type", "category")),
			str(pick(m, "description", "desc", "summary")),
		})
		if !ok {
			out.Dropped++
			continue
		}
		out.Entities = append(out.Entities, e)
	}
	for _, item := range rels {
		if line, ok := item.(string); ok {
			out.addLine(splitLine(line), "relationship")
			continue
		}
		m, ok := item.(map[string]any)
		if !ok {
			out.Dropped++
			continue
		}
		f := []string{
			str(pick(m, "source", "src", "from", "source_entity")),
			str(pick(m, "target", "tgt", "to", "target_entity")),
			str(pick(m, "description", "desc", "relationship")),
		}
		if st := pick(m, "strength", "weight", "score"); st != nil {
			f = append(f, str(st))
		}
		r, ok := relationshipFromFields(f)
		if !ok {
			out.Dropped++
			continue
		}
		out.Relationships = append(out.Relationships, r)
	}
	out.Complete = true
	return true
}

// pick returns the value of the first of keys present in m, matching keys case-insensitively.
func pick(m map[string]any, keys ...string) any {
	for _, k := range keys {
		if v, ok := m[k]; ok {
			return v
		}
	}
	for mk, v := range m {
		for _, k := range keys {
			if strings.EqualFold(mk, k) {
				return v
			}
		}
	}
	return nil
}

// str turns a JSON scalar into text; other values become "".
func str(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case float64:
		return strconv.FormatFloat(t, 'g', -1, 64)
	case bool:
		return fmt.Sprint(t)
	}
	return ""
}
