package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/rs/zerolog"
	"github.com/urfave/cli/v2"

	"github.com/stratarag/strata/internal/llm"
	"github.com/stratarag/strata/pipeline"
)

// tokenBudget returns --max-llm-tokens (STRATA_MAX_LLM_TOKENS), 0 when unset. It is checked
// before anything is opened, with or without a model, so that a budget of 0 (which would stop a
// run before its first call) or a negative one is a usage error even offline, where it is unused.
func tokenBudget(c *cli.Context) (int, error) {
	if !c.IsSet(flagMaxLLMTokens) {
		return 0, nil
	}
	if n := c.Int(flagMaxLLMTokens); n > 0 {
		return n, nil
	}
	return 0, usageError{fmt.Errorf("--%s must be at least 1 (chat tokens; leave it unset for no budget), got %d", flagMaxLLMTokens, c.Int(flagMaxLLMTokens))}
}

// chatTokens is what an estimate predicts the chat model bills: prompt and completion tokens of
// the calls still to pay for, in every stage but embeddings, which the budget does not count.
func chatTokens(s llm.StageEstimate) int { return s.PromptTokens + s.CompletionTokens }

// refuseOverBudget refuses, as a usage error (exit 2), a run whose predicted chat tokens exceed
// the budget: nothing has been called or written yet, and a run the budget would stop half-way
// is worth a decision first.
func refuseOverBudget(command string, est llm.Estimate, limit int, log zerolog.Logger) error {
	total := 0
	var parts []string
	for _, stage := range est.StageNames() {
		if stage == llm.StageEmbed {
			continue
		}
		if n := chatTokens(est.Stages[stage]); n > 0 {
			total += n
			parts = append(parts, stage+" "+groupDigits(n))
		}
	}
	if total <= limit {
		log.Info().Int("predicted_tokens", total).Int("max_llm_tokens", limit).Msg("predicted LLM tokens within the budget")
		return nil
	}
	return usageError{fmt.Errorf("predicted %s LLM tokens exceed --%s %d (%s); raise the budget or see %s --dry-run",
		groupDigits(total), flagMaxLLMTokens, limit, strings.Join(parts, ", "), command)}
}

// predictIngest runs ingest's dry run (pipeline.Ingester.Estimate) against the store as it is,
// opened read-only when it exists, and refuses the run when its prediction exceeds the budget.
// It comes before the embedding probe and the writable open, so a refused run has made no
// model call and written nothing. in.Store is left as it was.
func predictIngest(c *cli.Context, in *pipeline.Ingester, limit int, log zerolog.Logger) error {
	store, err := openExistingReadOnly(c, log)
	if err != nil {
		return err
	}
	if store != nil {
		defer closeStore(store, log)
		in.Store = store
		defer func() { in.Store = nil }()
	}
	in.NoSample = true // before the first call: extraction answers assumed, not measured
	est, err := in.Estimate(c.Context, c.Args().Slice())
	in.NoSample = false
	if err != nil {
		return fmt.Errorf("predict the run's LLM tokens (--%s): %w", flagMaxLLMTokens, err)
	}
	if est.Offline {
		return nil
	}
	return refuseOverBudget("ingest", est.LLM, limit, log)
}

// predictDelete runs delete's dry run on the open store and refuses the deletion when the
// predicted structure update exceeds the budget. Unknown ids are left to the deletion itself,
// which refuses them with its own message.
func predictDelete(c *cli.Context, in *pipeline.Ingester, ids []string, limit int, log zerolog.Logger) error {
	pre, err := in.Delete(c.Context, ids, true)
	if err != nil {
		return fmt.Errorf("predict the deletion's LLM tokens (--%s): %w", flagMaxLLMTokens, err)
	}
	if len(pre.Unknown) > 0 || pre.Offline {
		return nil
	}
	return refuseOverBudget("delete", pre.Estimate, limit, log)
}

// budgetMessage is the one line a run stopped by its token budget ends with: what was spent,
// that nothing is lost, and how to go on. An ingest resumes with the same command (its
// documents written are unchanged to it, every answer paid for is cached); a deletion's
// documents deleted are gone, so the same ids would be unknown: the structure is completed by
// a deletion of the ids still stored, of --missing paths, or by any ingest.
func budgetMessage(command string, spent *llm.BudgetError) string {
	then := "run the same command again, with a higher --" + flagMaxLLMTokens + " or without it, to resume"
	if command == "delete" {
		then = "run strata delete again with the ids still stored (or --missing PATH...), or any strata ingest, " +
			"with a higher --" + flagMaxLLMTokens + " or without it, to complete the structure"
	}
	if spent.Predicted > 0 {
		// Batch mode: a job is refused on its prediction, before the spend reaches the budget.
		return fmt.Sprintf("LLM token budget spent: %s chat tokens of --%s %d, and the next batch job (stage %s), predicted at %s, would pass it; "+
			"what the run did is kept: %s; answers already paid for come from the cache",
			groupDigits(spent.Spent), flagMaxLLMTokens, spent.Limit, spent.Stage, groupDigits(spent.Predicted), then)
	}
	return fmt.Sprintf("LLM token budget spent: %s chat tokens of --%s %d (stage %s; calls in flight finished, no new one started); "+
		"what the run did is kept: %s; answers already paid for come from the cache",
		groupDigits(spent.Spent), flagMaxLLMTokens, spent.Limit, spent.Stage, then)
}

// budgetSpent returns the budget error err holds, if any.
func budgetSpent(err error) (*llm.BudgetError, bool) {
	var spent *llm.BudgetError
	return spent, errors.As(err, &spent)
}

// groupDigits writes n with its digits in groups of three ("1 234 567"), as token counts are
// read at a glance.
func groupDigits(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(' ')
		}
		b.WriteRune(r)
	}
	return b.String()
}
