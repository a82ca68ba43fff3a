package prompts

import "encoding/json"

// Point is one key point of a global-search map answer.
type Point struct {
	Description string  `json:"description"`
	Score       float64 `json:"score"` // 0–100
}

// ParsePoints reads the points of a key-points answer. It accepts {"points":[…]} or a bare array;
// points without a description are dropped and counted, scores are clamped to 0–100. It fails
// only when the answer holds no JSON.
func ParsePoints(answer string) (points []Point, dropped int, err error) {
	js, err := ExtractJSON(answer)
	if err != nil {
		return nil, 0, err
	}
	var v any
	if err := json.Unmarshal([]byte(js), &v); err != nil {
		return nil, 0, err
	}
	var items []any
	switch t := v.(type) {
	case []any:
		items = t
	case map[string]any:
		items, _ = pick(t, "points", "key_points").([]any)
	}
	for _, it := range items {
		m, ok := it.(map[string]any)
		if !ok {
			dropped++
			continue
		}
		p := Point{
			Description: CleanText(str(pick(m, "description", "point", "text"))),
			Score:       clampRating(pick(m, "score", "importance", "rating"), 100),
		}
		if p.Description == "" {
			dropped++
			continue
		}
		points = append(points, p)
	}
	return points, dropped, nil
}
