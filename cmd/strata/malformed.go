package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/rs/zerolog"

	"github.com/stratarag/strata/internal/llm"
	"github.com/stratarag/strata/pipeline/extract"
)

// malformedCounts is what one stage's parser could not read in full (ingest --json
// "malformed_answers"). Such answers are not cached, so the next run asks for them again.
type malformedCounts struct {
	Answers        int `json:"answers"` // every answer of the stage, cache hits included
	Salvaged       int `json:"salvaged"`
	Unreadable     int `json:"unreadable"`
	DroppedRecords int `json:"dropped_records"`
	// UnreadableShare is Unreadable / Answers, the figure unusable judges the stage by.
	UnreadableShare float64 `json:"unreadable_share"`
}

// malformedByStage maps a stage (llm.StageExtract, …) to its damaged answers.
type malformedByStage map[string]malformedCounts

// answers is how many answers a stage got: those asked for and those the cache held (which were
// read in full, or they would not have been cached).
func answers(u llm.StageUsage) int { return u.LLMCalls + u.CacheHits }

// malformedAnswers lists the stages with damaged answers; an empty map when there were none
// (or no model), so the JSON field is always an object.
func malformedAnswers(st *llm.Stats) malformedByStage {
	out := malformedByStage{}
	if st == nil {
		return out
	}
	for name, u := range st.Stages {
		if u.Damaged() > 0 {
			mc := malformedCounts{Answers: answers(u), Salvaged: u.Salvaged, Unreadable: u.Unreadable, DroppedRecords: u.DroppedRecords}
			if mc.Answers > 0 {
				mc.UnreadableShare = float64(u.Unreadable) / float64(mc.Answers)
			}
			out[name] = mc
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

// minUnusable is how many unreadable answers it takes, at least, to judge a stage unusable,
// unless the stage had fewer answers and none was readable. See unusable.
const minUnusable = 3

// unusable reports whether the model could not give a stage's answers in the format asked for:
// at least half of them were unreadable, and at least minUnusable of them, or all of them when
// the stage had fewer answers than that. So 1 of 1 and 2 of 2 are unusable: on a tiny run the
// stage got nothing from the model, the failure the rule is for. 1 of 2 and 2 of 4 are not, and
// neither is 2 of 3: so few damaged answers say less about the model than about a few passages
// it stumbled on, and the malformed-answers warning reports them anyway.
func unusable(u llm.StageUsage) bool {
	n := answers(u)
	return u.Unreadable > 0 && u.Unreadable >= min(minUnusable, n) && 2*u.Unreadable >= n
}

// unusableStages lists in pipeline order the stages the model could not do (unusable); an
// empty list when there were none (or no model), so that the JSON field is always a list.
func unusableStages(st *llm.Stats) []string {
	out := []string{}
	if st == nil {
		return out
	}
	for _, name := range st.StageNames() {
		if unusable(st.Stages[name]) {
			out = append(out, name)
		}
	}
	return out
}

// stageWork says what a stage makes, for a reader who does not know strata's stage names.
var stageWork = map[string]string{
	llm.StageExtract:   "entity and relation extraction",
	llm.StageRelations: "the relation pass of extraction",
	llm.StageGlean:     "gleaning",
	llm.StageSummarize: "the merged entity descriptions",
	llm.StageLayers:    "the summary entities of the hierarchy",
	llm.StageAggregate: "the relations between summary entities",
	llm.StageReport:    "the community reports",
	llm.StageArch:      "the attributed-community summaries",
}

// describeUnusable says plainly which stages the model could not do, with the figures, and what
// to try instead; "" when there are none. mode is the run's --extract-mode.
func describeUnusable(st *llm.Stats, mode extract.Mode) string {
	stages := unusableStages(st)
	if len(stages) == 0 {
		return ""
	}
	var parts []string
	extraction := false
	for _, name := range stages {
		u := st.Stages[name]
		work := stageWork[name]
		if work == "" {
			work = "the " + name + " stage"
		}
		parts = append(parts, fmt.Sprintf("%d of %d %s answers (%.0f%%) were unreadable, so %s got nothing from it",
			u.Unreadable, answers(u), name, 100*float64(u.Unreadable)/float64(answers(u)), work))
		switch name {
		case llm.StageExtract, llm.StageRelations, llm.StageGlean:
			extraction = true
		}
	}
	try := "a larger or instruction-tuned model, or a server with structured output (JSON mode)"
	if extraction {
		other := extract.ModeTwoPass
		if mode == extract.ModeTwoPass {
			other = extract.ModeCombined
		}
		try = "a larger or instruction-tuned model, a server with structured output (JSON mode), or --extract-mode " + string(other)
	}
	return fmt.Sprintf("the model cannot follow strata's answer format: %s; try %s. The documents are stored as ingested: "+
		"ingest them into a new --data-dir (or strata delete them first) to extract them again",
		strings.Join(parts, "; "), try)
}
