package retrieval

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/stratarag/strata/internal/embedding"
	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/textutil"
	"github.com/stratarag/strata/prompts"
)

// Mapper runs the map step of global search: from a batch of community reports it returns the
// points that help answer the question, each scored 0–100 (prompts.Point). Points should cite
// the reports they come from as [report:ID], as the key-points prompt asks; a point citing none
// of the batch's reports is attributed to all of them. An error wrapping prompts.ErrUnreadable
// counts as a batch without points; any other error fails the query.
type Mapper interface {
	KeyPoints(ctx context.Context, question, reportsText string) ([]prompts.Point, error)
}

// Parameters of global search.
const (
	// maxGlobalCommunities bounds the reports one query maps over. The level is the finest one
	// with at most this many communities: finer reports are more specific, and 64 reports of a
	// few hundred tokens make a handful of map calls. When even level 0 has more, the community
	// summary index preselects this many, so that a query on a large graph stays a handful of
	// calls instead of one per community.
	maxGlobalCommunities = 64
	// globalIndexOversample is how many community-index hits are asked for per community wanted:
	// the index holds every level, and hits at finer levels share their ancestor at the chosen
	// one.
	globalIndexOversample = 4
	// globalMapConcurrency bounds the map calls in flight. The LLM client has its own limits;
	// this one keeps one query from queueing all its batches at once.
	globalMapConcurrency = 4
	// globalMaxLevels guards the walk down the levels and up the parents against a store that
	// never runs out of levels; Leiden stops after 10.
	globalMaxLevels = 32
	// offlineRatingWeight is the share of the offline score that the report's rating (0–10) can
	// take away: relevance to the question decides, the rating breaks near-ties the way the map
	// step's importance would.
	offlineRatingWeight = 0.2
)

// globalPoint is a ranked point of the map step with the communities it comes from.
type globalPoint struct {
	Description string
	Score       float64
	Sources     []string // community ids
	Cites       bool     // Description cites its sources as [report:ID]
}

// reportBatch is the reports text of one map call and the communities in it, in text order.
type reportBatch struct {
	text string
	ids  []string
}

// global is GraphRAG-style global search: the community reports of one level (preselected by the
// community summary index when the level has too many), mapped in batches to scored points by
// the Mapper (or, offline, by similarity to the question), zero-scored points dropped, the rest
// ranked and written into the context until the budget is spent.
func (e *Engine) global(ctx context.Context, question string, qvec []float32, opt Options, res *Result) error {
	comms, err := e.globalCommunities(ctx, qvec)
	if err != nil {
		return err
	}
	byID := make(map[string]graph.Community, len(comms))
	for _, c := range comms {
		byID[c.ID] = c
	}

	t := time.Now()
	var points []globalPoint
	if e.Mapper == nil {
		points = offlinePoints(qvec, comms)
	} else {
		points, err = e.mapReports(ctx, question, comms, opt.MaxContextTokens)
		if err != nil {
			return err
		}
	}
	res.TimingsMS["map"] = ms(time.Since(t))

	points = slices.DeleteFunc(points, func(p globalPoint) bool { return !(p.Score > 0) })
	slices.SortStableFunc(points, func(a, b globalPoint) int { return cmp.Compare(b.Score, a.Score) })

	b := newContextBuilder(e.Tokenizer)
	n := b.section("Analyst Reports", len(points), func(i int) string { return renderPoint(points[i]) }, opt.MaxContextTokens)
	seen := map[string]bool{}
	for _, p := range points[:n] {
		for _, id := range p.Sources {
			if c, ok := byID[id]; ok && !seen[id] {
				seen[id] = true
				res.Context.Communities = append(res.Context.Communities,
					CommunityItem{ID: c.ID, Level: c.Level, Title: c.Title, Summary: c.Summary, Rating: c.Rating})
			}
		}
	}
	res.ContextText = b.String()
	res.Budget = b.budget(opt.MaxContextTokens)

	// The chunks behind the best points, for a reader to check them and for eval to score the
	// mode; they are not part of the context text, which holds the points only.
	var cited []graph.Community
	for _, it := range res.Context.Communities {
		cited = append(cited, byID[it.ID])
	}
	chunks, err := e.globalChunks(ctx, qvec, cited, globalMaxMembers, nil, opt.TopK)
	if err != nil || len(chunks) == 0 {
		return err
	}
	chunks = byDocument(chunks)
	items, err := e.chunkItems(ctx, chunks[:min(len(chunks), opt.TopK)], nil)
	if err != nil {
		return err
	}
	res.Context.Chunks = items
	return nil
}

// globalCommunities returns the reported communities of the finest level with at most
// maxGlobalCommunities communities (level 0 when none qualifies); when the level has more, the
// community summary index picks which.
func (e *Engine) globalCommunities(ctx context.Context, qvec []float32) ([]graph.Community, error) {
	var chosen []graph.Community
	level := 0
	for l := range globalMaxLevels {
		comms, err := e.Store.CommunitiesByLevel(ctx, l)
		if err != nil {
			return nil, err
		}
		if len(comms) == 0 || (l > 0 && len(comms) > maxGlobalCommunities) {
			break
		}
		chosen, level = comms, l
		if len(comms) > maxGlobalCommunities {
			break // level 0 is too big already: the index decides below
		}
	}
	chosen = slices.DeleteFunc(chosen, func(c graph.Community) bool { return c.Title == "" && c.Summary == "" && c.Report == "" })
	if len(chosen) <= maxGlobalCommunities {
		return chosen, nil
	}
	return e.preselect(ctx, qvec, level, chosen)
}

// preselect picks maxGlobalCommunities of a level's communities with the community summary
// index: the index is searched over all levels and each hit is expanded to its ancestor at the
// level, in hit order. Slots the index leaves open (communities without embeddings, or many hits
// sharing ancestors) go to the highest-rated of the rest.
func (e *Engine) preselect(ctx context.Context, qvec []float32, level int, comms []graph.Community) ([]graph.Community, error) {
	hits, err := e.Store.VectorSearch(ctx, graph.CommunityEmbedding, qvec, maxGlobalCommunities*globalIndexOversample)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]graph.Community, len(comms))
	for _, c := range comms {
		byID[c.ID] = c
	}
	// current[i] walks from hit i up the ParentID chain until it reaches the level.
	current := make([]string, len(hits))
	for i, h := range hits {
		current[i] = h.ID
	}
	for range globalMaxLevels {
		var ask []string
		for _, id := range current {
			if _, ok := byID[id]; id != "" && !ok && !slices.Contains(ask, id) {
				ask = append(ask, id)
			}
		}
		if len(ask) == 0 {
			break
		}
		found, err := e.Store.Communities(ctx, ask)
		if err != nil {
			return nil, err
		}
		parent := make(map[string]string, len(found))
		for _, c := range found {
			if c.Level > level {
				parent[c.ID] = c.ParentID
			}
		}
		for i, id := range current {
			if _, ok := byID[id]; !ok && id != "" {
				current[i] = parent[id] // "" when unknown or coarser than the level: dropped
			}
		}
	}
	var out []graph.Community
	picked := map[string]bool{}
	for _, id := range current {
		if c, ok := byID[id]; ok && !picked[id] && len(out) < maxGlobalCommunities {
			picked[id] = true
			out = append(out, c)
		}
	}
	if len(out) < maxGlobalCommunities {
		rest := slices.DeleteFunc(slices.Clone(comms), func(c graph.Community) bool { return picked[c.ID] })
		slices.SortStableFunc(rest, func(a, b graph.Community) int { return cmp.Compare(b.Rating, a.Rating) })
		out = append(out, rest[:min(len(rest), maxGlobalCommunities-len(out))]...)
	}
	return out, nil
}

// reportOf reads a community's stored report JSON; a missing or unreadable one falls back to the
// community's title and summary. The stored rating wins: it is what the JSON context shows.
func reportOf(c graph.Community) prompts.Report {
	r, _, err := prompts.ParseReport(c.Report)
	if err != nil {
		r = prompts.Report{}
	}
	r.Title = cmp.Or(r.Title, c.Title)
	r.Summary = cmp.Or(r.Summary, c.Summary)
	r.Rating = c.Rating
	return r
}

// renderReport lays out one report for the map prompt. Every line carries the report's id, so a
// point quoting any line can name its source.
func renderReport(c graph.Community) string {
	r := reportOf(c)
	tag := "[report:" + c.ID + "] "
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s%s (rating %.1f)", tag, textutil.OneLine(cmp.Or(r.Title, c.ID)), r.Rating)
	if s := textutil.OneLine(r.Summary); s != "" {
		sb.WriteString("\n" + tag + s)
	}
	for _, f := range r.Findings {
		if line := findingText(f); line != "" {
			sb.WriteString("\n" + tag + line)
		}
	}
	return sb.String()
}

func findingText(f prompts.Finding) string {
	s, x := textutil.OneLine(f.Summary), textutil.OneLine(f.Explanation)
	switch {
	case s == "":
		return x
	case x == "":
		return s
	}
	return s + ": " + x
}

// reportBatches packs the rendered reports, in order, into texts of at most budget tokens each.
// A report longer than the budget gets a batch of its own, clipped to it.
func (e *Engine) reportBatches(comms []graph.Community, budget int) []reportBatch {
	var out []reportBatch
	var cur reportBatch
	used := 0
	for _, c := range comms {
		text := renderReport(c)
		cost := e.Tokenizer.Count(text) + 1
		if cost > budget {
			text, cost = clipTokens(e.Tokenizer, text, budget), budget
		}
		if used+cost > budget && len(cur.ids) > 0 {
			out = append(out, cur)
			cur, used = reportBatch{}, 0
		}
		if cur.text != "" {
			cur.text += "\n"
		}
		cur.text += text
		cur.ids = append(cur.ids, c.ID)
		used += cost
	}
	if len(cur.ids) > 0 {
		out = append(out, cur)
	}
	return out
}

// mapReports runs the Mapper over report batches, at most globalMapConcurrency at a time, and
// returns the points in batch order.
func (e *Engine) mapReports(ctx context.Context, question string, comms []graph.Community, budget int) ([]globalPoint, error) {
	// Higher-rated reports first: points of equal score keep batch order in the ranking, so the
	// reports their writer found more important win ties.
	comms = slices.Clone(comms)
	slices.SortStableFunc(comms, func(a, b graph.Community) int { return cmp.Compare(b.Rating, a.Rating) })
	batches := e.reportBatches(comms, budget)
	results := make([][]globalPoint, len(batches))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(globalMapConcurrency)
	for i, batch := range batches {
		g.Go(func() error {
			pts, err := e.Mapper.KeyPoints(gctx, question, batch.text)
			if errors.Is(err, prompts.ErrUnreadable) {
				return nil // the model's answer held no points
			}
			if err != nil {
				return fmt.Errorf("map step, batch %d of %d: %w", i+1, len(batches), err)
			}
			for _, p := range pts {
				// A point citing none of the batch's reports comes from all of them.
				desc, cited := attribute(p.Description, batch.ids)
				gp := globalPoint{Description: desc, Score: p.Score, Sources: cited, Cites: len(cited) > 0}
				if !gp.Cites {
					gp.Sources = slices.Clone(batch.ids)
				}
				results[i] = append(results[i], gp)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return slices.Concat(results...), nil
}

// attribute keeps a point's citations of the given reports, removes any other citation (made up:
// the batch holds no other sources), and returns the cleaned description with the reports it
// cites, in order.
func attribute(description string, reports []string) (string, []string) {
	clean, kept, _ := prompts.FilterCitations(description, func(c prompts.Citation) bool {
		return c.Kind == "report" && slices.Contains(reports, c.ID)
	})
	ids := make([]string, len(kept))
	for i, c := range kept {
		ids[i] = c.ID
	}
	return clean, ids
}

// offlinePoints stands in for the map step without a model: every report yields its summary and
// its findings as points, scored by the question's similarity to the community's embedding,
// weighted a little by its rating. A community's points share its score, so they stay together
// in the stable ranking.
func offlinePoints(qvec []float32, comms []graph.Community) []globalPoint {
	var out []globalPoint
	for _, c := range comms {
		sim := max(0, embedding.Cosine(qvec, c.Embedding))
		rating := min(1, max(0, c.Rating/10))
		score := math.Round(1000*sim*(1-offlineRatingWeight+offlineRatingWeight*rating)) / 10
		r := reportOf(c)
		head := textutil.OneLine(cmp.Or(r.Title, c.ID))
		if s := textutil.OneLine(r.Summary); s != "" {
			head += ": " + s
		}
		src := []string{c.ID}
		add := func(text string) {
			desc, cited := attribute(text, src)
			out = append(out, globalPoint{Description: desc, Score: score, Sources: src, Cites: len(cited) > 0})
		}
		add(head)
		for _, f := range r.Findings {
			if line := findingText(f); line != "" {
				add(line)
			}
		}
	}
	return out
}

// renderPoint writes a point for the context text, adding the citation of its reports when its
// description names none of them, so the answer can cite [report:ID].
func renderPoint(p globalPoint) string {
	line := "(importance " + strconv.FormatFloat(p.Score, 'f', -1, 64) + ") " + textutil.OneLine(p.Description)
	if p.Cites {
		return line
	}
	refs := make([]string, len(p.Sources))
	for i, id := range p.Sources {
		refs[i] = "report:" + id
	}
	return line + " [" + strings.Join(refs, ", ") + "]"
}
