package llmtask

import (
	"fmt"

	"github.com/stratarag/strata/internal/llm"
	"github.com/stratarag/strata/prompts"
)

// The judges below tell the client (llm.ChatRequest.Judge) what each task's parser makes of an
// answer, so that a damaged answer is counted per stage and never cached: a later run asks
// again rather than rebuilding the same damage from the cache. They parse the answer the same
// way the task does; parsing costs nothing next to the call.

// JudgeRecords judges an answer in the tuple format (extraction, gleaning, summary entities): it
// is salvaged when ParseRecords dropped a record or the answer was cut at the token limit, and
// unreadable when it was damaged and nothing could be read from it.
func JudgeRecords(resp llm.ChatResponse) llm.Verdict {
	return RecordsVerdict(prompts.ParseRecords(resp.Content), resp.Truncated())
}

// RecordsVerdict is JudgeRecords' verdict on records already parsed.
func RecordsVerdict(recs prompts.Records, truncated bool) llm.Verdict {
	if recs.Dropped == 0 && !truncated {
		return llm.Verdict{}
	}
	v := llm.Verdict{Dropped: recs.Dropped, Reason: fmt.Sprintf("%d malformed record(s) dropped", recs.Dropped)}
	if truncated {
		v.Reason += ", cut at the token limit"
	}
	if len(recs.Entities)+len(recs.Relationships) == 0 {
		v.Unreadable = true
	} else {
		v.Salvaged = true
	}
	return v
}

// JSONVerdict judges a JSON answer parsed by a prompts.Parse… function that returns the number
// of parts it dropped and an error when nothing could be read.
func JSONVerdict(dropped int, err error, truncated bool) llm.Verdict {
	switch {
	case err != nil:
		return llm.Verdict{Unreadable: true, Reason: err.Error()}
	case dropped > 0 || truncated:
		v := llm.Verdict{Salvaged: true, Dropped: dropped, Reason: fmt.Sprintf("%d empty part(s) dropped", dropped)}
		if truncated {
			v.Reason += ", cut at the token limit"
		}
		return v
	}
	return llm.Verdict{}
}

// JudgeSummary judges a plain-text answer read with prompts.CleanSummary: unreadable when nothing
// is left, salvaged when it was cut at the token limit.
func JudgeSummary(resp llm.ChatResponse) llm.Verdict {
	switch {
	case prompts.CleanSummary(resp.Content) == "":
		return llm.Verdict{Unreadable: true, Reason: "no text once reasoning and labels are removed"}
	case resp.Truncated():
		return llm.Verdict{Salvaged: true, Reason: "cut at the token limit"}
	}
	return llm.Verdict{}
}
