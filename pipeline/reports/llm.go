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

// LLM writes community reports with a model. Levels are written finest first, so a community too
// large for the input budget is described through its children's reports. Tokens are spent only
// where a model adds something: a community without relations (a lone entity, or several unrelated
// ones) gets an extractive report, and a community that merely repeats its only child one level
// down reuses the child's report. A community whose answer stays unreadable gets an extractive
// report instead, so one bad answer never fails a run; API errors do fail it (a re-run reuses every
// cached report).
type LLM struct {
	Chat      llm.Chatter
	Embedder  embedding.Embedder
	Tokenizer *tokenizer.Tokenizer
	Log       zerolog.Logger
	// MaxInputTokens bounds the community text of one prompt (llmtask.ReportInputTokens when
	// zero).
	MaxInputTokens int
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
				if m.RelationCount == 0 {
					extractive.Add(1)
					reps[i] = buildReport(m)
					return nil
				}
				if len(m.Children) == 1 && m.Children[0].Size == len(m.Entities) {
					if r, ok := written[m.Children[0].ID]; ok {
						reused.Add(1)
						reps[i] = r
						return nil
					}
				}
				text := x.communityText(m, written)
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
	x.Log.Info().Int("communities", len(communities)).Int64("without_relations", extractive.Load()).
		Int64("same_as_child", reused.Load()).Msg("community reports written; only communities with relations cost model calls")
	return nil
}

// budget is the prompt's budget of input tokens for a community's entities and relations.
func (x *LLM) budget() int { return cmp.Or(x.MaxInputTokens, llmtask.ReportInputTokens) }

// maxRelations is how many relations of a community are read: more than fit in the budget, as a
// line costs at least two tokens (a token of text and its newline), so that communityText lays
// out and counts the same lines as with all of them.
func (x *LLM) maxRelations() int { return x.budget()/2 + 1 }

// communityText lays a community out for the report prompt: entities and relations by weight
// while they fit the budget; when they do not all fit, the reports of the child communities
// come first, since they summarize what the cut would lose.
func (x *LLM) communityText(m graph.Members, written map[string]Report) string {
	budget := x.budget()
	var sb strings.Builder
	used := 0
	add := func(line string) bool {
		n := x.Tokenizer.Count(line) + 1
		if used+n > budget {
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
	rels := m.Relations // heaviest first, as many as can fit (maxRelations)
	full := 0
	for _, e := range entities {
		full += x.Tokenizer.Count(e.Description) + 8
	}
	for _, r := range rels {
		full += x.Tokenizer.Count(r.Description) + 8
	}
	full += 8 * (m.RelationCount - len(rels)) // those left out count at least that
	if full > budget && len(m.Children) > 0 {
		sb.WriteString("Reports of sub-communities:\n")
		for _, c := range m.Children {
			if r, ok := written[c.ID]; ok && !add(fmt.Sprintf("- %s: %s", r.Title, textutil.OneLine(r.Summary))) {
				break
			}
		}
	}
	sb.WriteString("Entities (name, type, description):\n")
	for _, e := range entities {
		if !add(fmt.Sprintf("- %s (%s): %s", e.Name, e.Type, textutil.OneLine(e.Description))) {
			break
		}
	}
	names := make(map[string]string, len(entities))
	for _, e := range entities {
		names[e.ID] = e.Name
	}
	sb.WriteString("Relationships (source, target, weight, description):\n")
	for _, r := range rels {
		if !add(fmt.Sprintf("- %s -- %s (%.0f): %s", names[r.Source], names[r.Target], r.Weight, textutil.OneLine(r.Description))) {
			break
		}
	}
	return sb.String()
}

// EstimateReport predicts the call Reports would make for a community as it is stored: none
// when it has no relation (an extractive report) or repeats its only child (the child's report
// is reused, and the child is reported with it); otherwise one, whose prompt is rendered from the
// stored members without the child reports (which take the place of members when the community
// does not fit) and whose answer is counted at its token cap.
func (x *LLM) EstimateReport(ctx context.Context, store graph.Reader, c graph.Community) (llm.StageEstimate, error) {
	m, err := store.CommunityMembers(ctx, c.ID, x.maxRelations())
	if err != nil {
		return llm.StageEstimate{}, fmt.Errorf("read members of community %s: %w", c.ID, err)
	}
	if m.RelationCount == 0 || (len(m.Children) == 1 && m.Children[0].Size == len(m.Entities)) {
		return llm.StageEstimate{}, nil
	}
	p, err := report.Prompt(x.communityText(m, nil), 0, 0)
	if err != nil {
		return llm.StageEstimate{}, fmt.Errorf("estimate the report of community %s: %w", c.ID, err)
	}
	return llm.StageEstimate{Calls: 1, PromptTokens: x.Tokenizer.Count(p.System) + x.Tokenizer.Count(p.User), CompletionTokens: report.MaxTokens}, nil
}
