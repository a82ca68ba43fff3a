package llmtask

import (
	"context"
	"fmt"

	"github.com/stratarag/strata/internal/llm"
	"github.com/stratarag/strata/prompts"
)

// ArchSummaryMaxTokens caps the answer of ArchSummary: a title and a summary of at most
// prompts.ArchSummaryWords words.
const ArchSummaryMaxTokens = 300

// ArchSummary asks for the title and summary of one attributed community of the given layer
// from its members' lines (count members). An answer without both a TITLE: and a SUMMARY: line
// is asked for once more, then is unreadable.
func ArchSummary(ctx context.Context, chat llm.Chatter, ps *prompts.Set, layer, count int, membersText string) (title, summary string, err error) {
	p, err := ps.ArchSummary(layer, count, membersText)
	if err != nil {
		return "", "", err
	}
	req := llm.ChatRequest{Stage: llm.StageArch, Messages: promptMessages(p), MaxTokens: ArchSummaryMaxTokens, Judge: judgeArchSummary}
	pair, err := askTwice(ctx, chat, req, func(answer string) ([2]string, error) {
		t, s, err := prompts.ParseArchSummary(answer)
		return [2]string{t, s}, err
	})
	if err != nil {
		return "", "", fmt.Errorf("attributed community summary: %w", err)
	}
	return pair[0], pair[1], nil
}

func judgeArchSummary(resp llm.ChatResponse) llm.Verdict {
	_, _, err := prompts.ParseArchSummary(resp.Content)
	return jsonVerdict(0, err, resp.Truncated())
}
