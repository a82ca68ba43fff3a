package prompts

import (
	"encoding/json"
	"errors"
	"math"
	"strconv"
)

// Report is a community report: the JSON object the report prompt asks the model for.
type Report struct {
	Title             string    `json:"title"`
	Summary           string    `json:"summary"`
	Rating            float64   `json:"rating"`
	RatingExplanation string    `json:"rating_explanation"`
	Findings          []Finding `json:"findings"`
}

// Finding is one insight of a community report.
type Finding struct {
	Summary     string `json:"summary"`
	Explanation string `json:"explanation"`
}

// ParseReport reads a report from a model answer: fenced, surrounded by prose, truncated, with a
// rating written as a string or findings written as plain strings. Missing fields stay empty;
// dropped counts findings that held nothing usable. It fails only when the answer holds no JSON
// object, or one without a title, a summary or a finding.
func ParseReport(answer string) (r Report, dropped int, err error) {
	js, err := ExtractJSON(answer)
	if err != nil {
		return Report{}, 0, err
	}
	var v any
	if err := json.Unmarshal([]byte(js), &v); err != nil {
		return Report{}, 0, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		if arr, isArr := v.([]any); isArr && len(arr) > 0 {
			m, ok = arr[0].(map[string]any)
		}
		if !ok {
			return Report{}, 0, errors.New("report answer is not a JSON object")
		}
	}
	r.Title = CleanText(str(pick(m, "title", "name")))
	r.Summary = CleanText(str(pick(m, "summary", "overview")))
	r.RatingExplanation = CleanText(str(pick(m, "rating_explanation", "ratingExplanation", "rating explanation", "explanation")))
	r.Rating = clampRating(pick(m, "rating", "impact", "importance", "score"), 10)
	findings, _ := pick(m, "findings", "insights").([]any)
	for _, f := range findings {
		var fd Finding
		switch t := f.(type) {
		case string:
			fd.Summary = CleanText(t)
		case map[string]any:
			fd.Summary = CleanText(str(pick(t, "summary", "title", "insight")))
			fd.Explanation = CleanText(str(pick(t, "explanation", "details", "description")))
		}
		if fd.Summary == "" && fd.Explanation == "" {
			dropped++
			continue
		}
		r.Findings = append(r.Findings, fd)
	}
	if r.Title == "" && r.Summary == "" && len(r.Findings) == 0 {
		return Report{}, dropped, errors.New("report answer has no title, summary or findings")
	}
	return r, dropped, nil
}

// clampRating reads a number (or numeric string) and clamps it to [0, hi]; anything else is 0.
func clampRating(v any, hi float64) float64 {
	var f float64
	switch t := v.(type) {
	case float64:
		f = t
	case string:
		m := strengthRe.FindStringSubmatch(CleanText(t))
		if m == nil {
			return 0
		}
		f, _ = strconv.ParseFloat(m[1], 64)
	default:
		return 0
	}
	if math.IsNaN(f) || f < 0 {
		return 0
	}
	return math.Min(f, hi)
}
