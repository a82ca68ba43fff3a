package arch

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/stratarag/strata/internal/llmtask/archsummary"

	"github.com/stratarag/strata/internal/llm"
	"github.com/stratarag/strata/internal/textutil"
	"github.com/stratarag/strata/internal/tokenizer"
	"github.com/stratarag/strata/prompts"
)

// Limits of extractive summaries.
const (
	titleMembers       = 3
	listedMembers      = 10
	descriptionMembers = 5
)

// Extractive describes a community without a model, as the offline community reports do: the
// title names its most linked members, the summary lists members and adds the first sentence of
// the most linked ones' descriptions.
type Extractive struct{}

// Summarize implements Summarizer.
func (Extractive) Summarize(_ context.Context, layer int, members []Member) (Summary, error) {
	if len(members) == 0 {
		return Summary{}, errors.New("a community without members")
	}
	names := make([]string, 0, len(members))
	for _, m := range members {
		names = append(names, m.Name)
	}
	title := strings.Join(names[:min(titleMembers, len(names))], ", ")
	if more := len(names) - titleMembers; more > 0 {
		title += fmt.Sprintf(" and %d more", more)
	}
	kind := "entities"
	if layer > 1 {
		kind = "communities"
	}
	summary := fmt.Sprintf("A community of %d related %s: %s", len(members), kind, strings.Join(names[:min(listedMembers, len(names))], ", "))
	if len(names) > listedMembers {
		summary += ", …"
	}
	summary += "."
	for _, m := range members[:min(descriptionMembers, len(members))] {
		if s := textutil.FirstSentence(m.Description); s != "" {
			summary += " " + s
		}
	}
	return Summary{Title: title, Summary: summary}, nil
}

// LLM describes a community with a model (task archsummary). A community whose answer is
// unreadable gets the extractive summary, so one bad answer never breaks the hierarchy; API
// errors fail the stage.
type LLM struct {
	Chat      llm.Chatter
	Tokenizer *tokenizer.Tokenizer
	// MaxInputTokens bounds the members text of one prompt (4000 when zero).
	MaxInputTokens int
}

// Summarize implements Summarizer.
func (x *LLM) Summarize(ctx context.Context, layer int, members []Member) (Summary, error) {
	title, summary, err := archsummary.Summarize(ctx, x.Chat, layer, len(members), x.membersText(members))
	if errors.Is(err, prompts.ErrUnreadable) {
		return Extractive{}.Summarize(ctx, layer, members)
	}
	if err != nil {
		return Summary{}, err
	}
	return Summary{Title: title, Summary: summary}, nil
}

// membersText lists the members, most linked first, within the input budget.
func (x *LLM) membersText(members []Member) string {
	budget := x.MaxInputTokens
	if budget <= 0 {
		budget = 4000
	}
	return prompts.MemberLines(x.Tokenizer.Count, budget, members, func(m Member) (string, string, string) {
		return m.Name, m.Type, m.Description
	})
}
