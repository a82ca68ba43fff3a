package reports

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/stratarag/strata/internal/llmtask"
	"github.com/stratarag/strata/internal/llmtask/report"

	"github.com/rs/zerolog"
	"golang.org/x/sync/errgroup"

	"github.com/stratarag/strata/internal/embedding"
	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/llm"
	"github.com/stratarag/strata/internal/textutil"
	"github.com/stratarag/strata/internal/tokenizer"
	"github.com/stratarag/strata/prompts"
)

// LLM writes community reports with a model. Levels are written finest first, so that a coarser
// community is described through its children's reports (GraphRAG's substitution): its prompt
// holds the sub-communities' titles and summaries and its heaviest relations, not every member
// again, so each level above the finest costs a fraction of the graph's text instead of all of
// it. Tokens are spent only where a model adds something: a community without relations (a lone
// entity, or several unrelated ones), or whose whole text is shorter than a report would be
// (MinInputTokens), gets an extractive report, and a community that merely repeats its only child
// one level down reuses the child's report. A community whose answer stays unreadable gets an
// extractive report instead, so one bad answer never fails a run; API errors do fail it (a re-run
// reuses every cached report).
type LLM struct {
	Chat      llm.Chatter
	Embedder  embedding.Embedder
	Tokenizer *tokenizer.Tokenizer
	Log       zerolog.Logger
	// MaxInputTokens bounds the community text of one prompt (llmtask.ReportInputTokens when
	// zero).
	MaxInputTokens int
	// MinInputTokens is the size of community text, in tokens, below which the community gets
	// an extractive report: its text is shorter than the report a model would write of it
	// (llmtask.ReportMinInputTokens when zero; every community with relations is sent when
	// negative).
	MinInputTokens int
	// Concurrency is the number of communities reported at once (8 when zero); the client bounds
	// requests in flight on its own as well.
	Concurrency int
}

// Reports implements pipeline.Reporter.
func (x *LLM) Reports(ctx context.Context, store graph.ReadWriter, communities []graph.Community) error {
	byLevel := map[int][]graph.Community{}
	var levels []int
	for _, c := range communities {
		if _, ok := byLevel[c.Level]; !ok {
			levels = append(levels, c.Level)
		}
		byLevel[c.Level] = append(byLevel[c.Level], c)
	}
	slices.Sort(levels)
	slices.Reverse(levels) // finest first: coarser reports may draw on them
	written := map[string]Report{}
	var fallbacks, extractive, reused atomic.Int64
	limit := newMemberLimiter()
	for _, level := range levels {
		part := byLevel[level]
		reps := make([]Report, len(part))
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(cmp.Or(x.Concurrency, 8))
		for i := range part {
			g.Go(func() error {
				release, err := limit.acquire(gctx, part[i])
				if err != nil {
					return err
				}
				defer release() // the members are held until the report is written
				m, err := store.CommunityMembers(gctx, part[i].ID, x.maxRelations())
				if err != nil {
					return fmt.Errorf("read members of community %s: %w", part[i].ID, err)
				}
				plan, text := x.plan(m, written)
				switch plan {
				case planExtractive:
					extractive.Add(1)
					reps[i] = extractiveReport(m, written)
					return nil
				case planReuse:
					reused.Add(1)
					reps[i] = written[m.Children[0].ID]
					return nil
				}
				r, err := report.Write(gctx, x.Chat, text)
				if err != nil {
					if !errors.Is(err, prompts.ErrUnreadable) {
						return fmt.Errorf("report community %s: %w", part[i].ID, err)
					}
					x.Log.Warn().Str("community", part[i].ID).Err(err).Msg("unreadable report; using an extractive one")
					fallbacks.Add(1)
					r = buildReport(m)
				}
				reps[i] = r
				return nil
			})
		}
		if err := g.Wait(); err != nil {
			return err
		}
		for i, c := range part {
			written[c.ID] = reps[i]
		}
		if err := write(ctx, store, x.Embedder, slices.Clone(part), reps); err != nil {
			return err
		}
	}
	if n := fallbacks.Load(); n > 0 {
		x.Log.Warn().Int64("communities", n).Msg("communities got extractive reports because the model's answer was unreadable")
	}
	x.Log.Info().Int("communities", len(communities)).Int64("extractive", extractive.Load()).
		Int64("same_as_child", reused.Load()).Msg("community reports written; communities without relations or with little text cost no model call")
	return nil
}

// budget is the prompt's budget of input tokens for a community's entities and relations, within
// what the model's window holds beside the instructions and the answer.
func (x *LLM) budget() int {
	return llmtask.FitInput(x.Chat, cmp.Or(x.MaxInputTokens, llmtask.ReportInputTokens), report.MaxTokens, reportOverhead)
}

// reportOverhead is the report prompt's tokens besides the community text: its instructions and
// the fences, generously.
const reportOverhead = 450

// minText is the community text below which a report is extractive (0: none is).
func (x *LLM) minText() int { return max(cmp.Or(x.MinInputTokens, llmtask.ReportMinInputTokens), 0) }

// maxRelations is how many relations of a community are read: more than fit in the budget, as a
// line costs at least two tokens (a token of text and its newline), so that communityText lays
// out and counts the same lines as with all of them.
func (x *LLM) maxRelations() int { return x.budget()/2 + 1 }

// What Reports does for one community.
type reportPlan int

const (
	planModel      reportPlan = iota // ask the model
	planExtractive                   // no relation, or less text than a report: build it without a model
	planReuse                        // the community repeats its only child: take the child's report
)

// plan decides what a community's report costs and, when a model writes it, lays out the
// prompt's community text. written holds the reports of this run (a dry run passes none: a
// child that repeats is reported in the same run as its parent). A community whose text is
// shorter than minText is reported without a model: from its children's reports when it has
// two or more, else from its members.
func (x *LLM) plan(m graph.Members, written map[string]Report) (reportPlan, string) {
	switch {
	case m.RelationCount == 0:
		return planExtractive, ""
	case len(m.Children) == 1 && m.Children[0].Size == len(m.Entities):
		if _, ok := written[m.Children[0].ID]; ok || written == nil {
			return planReuse, ""
		}
	}
	text := x.communityText(m, written)
	if x.Tokenizer.Count(text) < x.minText() {
		return planExtractive, ""
	}
	return planModel, text
}

// extractiveReport writes a report without a model: from the children's reports when m has two
// or more (what a parent's prompt would have held), else from its members.
func extractiveReport(m graph.Members, written map[string]Report) Report {
	children := reportedChildren(m, written)
	if len(children) < 2 {
		return buildReport(m)
	}
	r := buildReport(m) // title, rating and findings from the members
	var summary []string
	for _, c := range children[:min(summaryEntities, len(children))] {
		if s := textutil.FirstSentence(c.summary); s != "" && !slices.Contains(summary, s) {
			summary = append(summary, s)
		}
	}
	r.Summary = textutil.Clip(strings.Join(summary, " "), maxSummaryRunes)
	return r
}

// childReport is what a parent's prompt says of one child: the report this run wrote, else the
// one stored (an update reports only the communities a change touched).
type childReport struct{ title, summary string }

// reportedChildren returns the children of m that have a report, in order.
func reportedChildren(m graph.Members, written map[string]Report) []childReport {
	var out []childReport
	for _, c := range m.Children {
		if r, ok := written[c.ID]; ok {
			out = append(out, childReport{r.Title, r.Summary})
		} else if c.Title != "" || c.Summary != "" {
			out = append(out, childReport{c.Title, c.Summary})
		}
	}
	return out
}

// parentRelationTokens is what a parent's prompt gives its heaviest relations after its
// children's reports (a handful of lines); the rest of what the members say is in those reports.
const parentRelationTokens = 400

// descriptionRunes bounds an entity's or a relation's description in a report prompt: a report
// is written from what each member is, which a description says first, not from every mention
// merged into it.
const descriptionRunes = 300

// communityText lays a community out for the report prompt. A community with two or more
// reported children is described by their reports, then its heaviest relations within a
// few lines (those between children are what no child report says). A community at
// the finest level lists its entities and relations by weight while they fit the budget.
func (x *LLM) communityText(m graph.Members, written map[string]Report) string {
	budget := x.budget()
	var sb strings.Builder
	used := 0
	add := func(line string, limit int) bool {
		n := x.Tokenizer.Count(line) + 1
		if used+n > limit {
			return false
		}
		sb.WriteString(line)
		sb.WriteByte('\n')
		used += n
		return true
	}
	entities := slices.Clone(m.Entities)
	slices.SortFunc(entities, func(a, b graph.Entity) int {
		return cmp.Or(cmp.Compare(b.Degree, a.Degree), cmp.Compare(a.ID, b.ID))
	})
	names := make(map[string]string, len(entities))
	for _, e := range entities {
		names[e.ID] = e.Name
	}
	// shown holds the entity descriptions written: a relation described by a sentence already
	// there (an extraction that describes records with the passage's sentences gives both ends
	// and their relation the same one) is listed without repeating it.
	var shown strings.Builder
	relations := func(limit int) {
		sb.WriteString("Relationships (source, target, weight, description):\n")
		for _, r := range m.Relations { // heaviest first, as many as can fit (maxRelations)
			line := fmt.Sprintf("- %s -- %s (%.0f)", names[r.Source], names[r.Target], r.Weight)
			if d := textutil.OneLine(textutil.Clip(r.Description, descriptionRunes)); d != "" && !strings.Contains(shown.String(), d) {
				line += ": " + d
			}
			if !add(line, limit) {
				break
			}
		}
	}
	if children := reportedChildren(m, written); len(children) >= 2 {
		sb.WriteString("Reports of sub-communities:\n")
		for _, c := range children {
			if !add(fmt.Sprintf("- %s: %s", c.title, textutil.OneLine(c.summary)), budget) {
				break
			}
			shown.WriteString(textutil.OneLine(c.summary))
			shown.WriteByte('\n')
		}
		relations(min(budget, used+parentRelationTokens))
		return sb.String()
	}
	sb.WriteString("Entities (name, type, description):\n")
	for _, e := range entities {
		d := textutil.OneLine(textutil.Clip(e.Description, descriptionRunes))
		if !add(fmt.Sprintf("- %s (%s): %s", e.Name, e.Type, d), budget) {
			break
		}
		shown.WriteString(d)
		shown.WriteByte('\n')
	}
	relations(budget)
	return sb.String()
}

// EstimateReport predicts the call Reports would make for a community as it is stored (an
// update's, before the update): none when plan says so, at seven eighths of the threshold; otherwise one, whose prompt is rendered from the stored members and the
// stored reports of its children, and whose answer is counted at its token cap.
func (x *LLM) EstimateReport(ctx context.Context, store graph.Reader, c graph.Community) (llm.StageEstimate, error) {
	m, err := store.CommunityMembers(ctx, c.ID, x.maxRelations())
	if err != nil {
		return llm.StageEstimate{}, fmt.Errorf("read members of community %s: %w", c.ID, err)
	}
	// A community within an eighth of the threshold may pass it once the change is written: it
	// is counted, for an upper bound.
	y := *x
	y.MinInputTokens = x.minText() * 7 / 8
	if y.MinInputTokens == 0 {
		y.MinInputTokens = -1
	}
	plan, text := y.plan(m, nil)
	if plan != planModel {
		return llm.StageEstimate{}, nil
	}
	p, err := report.Prompt(text, 0, 0)
	if err != nil {
		return llm.StageEstimate{}, fmt.Errorf("estimate the report of community %s: %w", c.ID, err)
	}
	return llm.StageEstimate{Calls: 1, PromptTokens: x.Tokenizer.Count(p.System) + x.Tokenizer.Count(p.User), CompletionTokens: report.MaxTokens}, nil
}

// SampleCompletion writes the report of the community m as the stage would, kept out of the
// cache, and returns the tokens of the answer: what one report call makes the model write, which
// a dry run measures rather than assumes (a small model writes five times what the fake one
// does). An unreadable answer still counts what it cost.
func (x *LLM) SampleCompletion(ctx context.Context, m graph.Members) (int, error) {
	s := &llm.Sampler{Next: x.Chat, Count: x.Tokenizer.Count}
	if _, err := report.Write(ctx, s, x.communityText(m, nil)); err != nil && !errors.Is(err, prompts.ErrUnreadable) {
		return 0, fmt.Errorf("sample a community report: %w", err)
	}
	t, calls := s.Answered(llm.StageReport)
	if calls == 0 {
		return 0, nil
	}
	return t / calls, nil
}
