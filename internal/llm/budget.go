package llm

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// ErrBudgetSpent is wrapped by the error of a chat call that was not sent because the client's
// token budget (Config.TokenBudget) is spent. It is a failure of the run, never an unreadable
// answer: callers that fall back on a model-free stand-in for unreadable answers
// (prompts.ErrUnreadable) must pass it on, or the stand-in would be stored as the model's work.
var ErrBudgetSpent = errors.New("LLM token budget spent")

// BudgetError is the error of a chat attempt refused by the token budget; it wraps
// ErrBudgetSpent and carries the figures for the caller's message.
type BudgetError struct {
	Stage string // the stage of the call refused
	Spent int    // chat tokens (prompt + completion) billed so far, in-flight calls included
	Limit int    // Config.TokenBudget
	// Predicted, in batch mode, is what the batch job refused was predicted to cost: a job is
	// not submitted when its prediction would pass the budget, however little is spent yet.
	Predicted int
}

func (e *BudgetError) Error() string {
	if e.Predicted > 0 {
		return fmt.Sprintf("%v: %d chat tokens spent of a budget of %d, and the next batch job, predicted at %d tokens, would pass it (%s call not sent)",
			ErrBudgetSpent, e.Spent, e.Limit, e.Predicted, e.Stage)
	}
	return fmt.Sprintf("%v: %d chat tokens spent of a budget of %d (%s call not sent)", ErrBudgetSpent, e.Spent, e.Limit, e.Stage)
}

func (e *BudgetError) Unwrap() error { return ErrBudgetSpent }

// budget counts the chat tokens a client was billed and, with a limit, stops new chat attempts
// once they reach it. Attempts already sent are never cut off: their answers were paid for, and
// finishing them lets the cache keep them for the run that resumes.
type budget struct {
	limit int // 0: none

	mu       sync.Mutex
	spent    int
	reserved int           // predicted tokens of the batch jobs in flight, not yet spent
	inflight int           // attempts admitted and not yet ended
	idle     chan struct{} // closed while inflight is 0
}

func newBudget(limit int) *budget {
	idle := make(chan struct{})
	close(idle)
	return &budget{limit: limit, idle: idle}
}

// admit is called before each chat attempt, after its concurrency slot is taken. While the
// budget holds, the attempt is admitted and must be ended with end. Once it is spent, admit
// waits until the attempts in flight have ended before it refuses: a stage's first error cancels
// its sibling calls (errgroup), and a call cancelled half-way is paid for and lost, while one
// left to finish is accounted and cached.
func (b *budget) admit(ctx context.Context, stage string) error {
	for {
		b.mu.Lock()
		if b.limit <= 0 || b.spent < b.limit {
			if b.inflight == 0 {
				b.idle = make(chan struct{})
			}
			b.inflight++
			b.mu.Unlock()
			return nil
		}
		if b.inflight == 0 {
			err := &BudgetError{Stage: stage, Spent: b.spent, Limit: b.limit}
			b.mu.Unlock()
			return err
		}
		idle := b.idle
		b.mu.Unlock()
		select {
		case <-idle:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// spend adds the tokens an answer was billed. An attempt's answer is spent before the attempt
// ends, so that a refusal waiting on it reports figures that include it.
func (b *budget) spend(tokens int) {
	b.mu.Lock()
	b.spent += tokens
	b.mu.Unlock()
}

// end marks an admitted attempt as over, answered or not.
func (b *budget) end() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.inflight--
	if b.inflight == 0 {
		close(b.idle)
	}
}

// fits reports whether a batch job predicted at tokens may be submitted: what is spent, what
// the jobs in flight are predicted to cost and tokens together stay within the limit. A job
// cannot be stopped half-way as a stream of direct calls can, hence the stricter rule.
func (b *budget) fits(tokens int) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.limit <= 0 || b.spent+b.reserved+tokens <= b.limit
}

// reserve holds tokens for a batch job about to be submitted; settle gives them back.
func (b *budget) reserve(tokens int) {
	b.mu.Lock()
	b.reserved += tokens
	b.mu.Unlock()
}

// settle gives back what a batch job had reserved once its answers have been spent.
func (b *budget) settle(tokens int) {
	b.mu.Lock()
	b.reserved = max(0, b.reserved-tokens)
	b.mu.Unlock()
}

// refusal is the error of a batch job predicted at tokens that does not fit.
func (b *budget) refusal(stage string, tokens int) *BudgetError {
	b.mu.Lock()
	defer b.mu.Unlock()
	return &BudgetError{Stage: stage, Spent: b.spent, Limit: b.limit, Predicted: tokens}
}

// spentTokens returns the chat tokens billed so far.
func (b *budget) spentTokens() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.spent
}

// TokensSpent returns the chat tokens (prompt + completion, as billed; cached answers are free)
// the client has spent, the figure Config.TokenBudget is checked against.
func (c *Client) TokensSpent() int { return c.budget.spentTokens() }
