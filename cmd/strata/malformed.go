package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/rs/zerolog"

	"github.com/stratarag/strata/internal/llm"
)

// malformedCounts is what one stage's parser could not read in full (ingest --json
// "malformed_answers"). Such answers are not cached, so the next run asks for them again.
type malformedCounts struct {
	Salvaged       int `json:"salvaged"`
	Unreadable     int `json:"unreadable"`
	DroppedRecords int `json:"dropped_records"`
}

// malformedByStage maps a stage (llm.StageExtract, …) to its damaged answers.
type malformedByStage map[string]malformedCounts

// malformedAnswers lists the stages with damaged answers; an empty map when there were none
// (or no model), so the JSON field is always an object.
func malformedAnswers(st *llm.Stats) malformedByStage {
	out := malformedByStage{}
	if st == nil {
		return out
	}
	for name, u := range st.Stages {
		if u.Damaged() > 0 {
			out[name] = malformedCounts{Salvaged: u.Salvaged, Unreadable: u.Unreadable, DroppedRecords: u.DroppedRecords}
		}
	}
	return out
}

// describeMalformed says in one line how many answers were damaged, per stage in pipeline
// order, and what becomes of them; "" when none were.
func describeMalformed(st *llm.Stats) string {
	if st == nil || st.Total.Damaged() == 0 {
		return ""
	}
	var parts []string
	for _, name := range st.StageNames() {
		if n := st.Stages[name].Damaged(); n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", name, n))
		}
	}
	return fmt.Sprintf("%d model answer(s) salvaged in part, %d unreadable (%s), %d record(s) lost; not cached, so the next run asks again",
		st.Total.Salvaged, st.Total.Unreadable, strings.Join(parts, ", "), st.Total.DroppedRecords)
}

// reportMalformed logs the damaged answers of a run at warn level and, when w is not nil, adds
// the line to the text summary.
func reportMalformed(log zerolog.Logger, w io.Writer, st *llm.Stats) {
	line := describeMalformed(st)
	if line == "" {
		return
	}
	log.Warn().Int("salvaged", st.Total.Salvaged).Int("unreadable", st.Total.Unreadable).
		Int("dropped_records", st.Total.DroppedRecords).Msg("malformed model answers")
	if w != nil {
		fmt.Fprintf(w, "  malformed  %s\n", line)
	}
}
