// Package reports writes community reports (docs/ARCHITECTURE.md#ingestion-stages): a title, a
// summary, a rating and findings per community, stored on the Community node and embedded for
// global retrieval.
package reports

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"golang.org/x/sync/errgroup"
	"golang.org/x/sync/semaphore"

	"github.com/stratarag/strata/internal/embedding"
	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/textutil"
	"github.com/stratarag/strata/internal/topk"
	"github.com/stratarag/strata/prompts"
)

// Report is the JSON document a community report is stored as (Community.report): the shape the
// LLM path asks models for, which extractive reports follow too.
type Report = prompts.Report

// Finding is one point of a report.
type Finding = prompts.Finding

// Extractive builds reports without a model: the title names the community's most connected
// entities, the summary strings together their first descriptive sentences, findings are its
// strongest relations. The rating grows with size and internal weight.
type Extractive struct {
	Embedder embedding.Embedder
	// Batch is the number of communities written per store batch (defaultBatch when <= 0).
	Batch int
	// Concurrency is the number of communities whose members are read at once (4 when <= 0).
	// Building a report is cheap; reading its members is a round trip to the store, which on
	// Neo4j dominates the stage when done one at a time. Large communities are read fewer at a
	// time (memberBudget).
	Concurrency int
}

// defaultBatch is the number of reports a store batch writes unless Extractive.Batch says
// otherwise. On Neo4j a batch is a transaction that first checks that its communities exist: 621
// communities (multihop) took five at 128; 500 is also the rows the Neo4j store sends per
// statement by default, so a batch is one statement of each. A report with its embedding is a
// few kilobytes, and the embedder splits its requests as its model wants.
const defaultBatch = 500

// memberBudget bounds the members of the communities whose members are held at once; a larger
// community is read alone. A community's members and the relations among them take about
// 1.3 KB a member, and the largest communities of a huge graph have tens of thousands of
// members, so Concurrency of them read together would be the peak of the stage.
const memberBudget = 16384

// memberLimiter holds the reads of communities' members within memberBudget.
type memberLimiter struct{ sem *semaphore.Weighted }

func newMemberLimiter() memberLimiter { return memberLimiter{semaphore.NewWeighted(memberBudget)} }

// acquire waits until c's members may be read and held, and returns what lets them go.
func (l memberLimiter) acquire(ctx context.Context, c graph.Community) (release func(), err error) {
	w := int64(min(max(c.Size, 1), memberBudget))
	if err := l.sem.Acquire(ctx, w); err != nil {
		return nil, err
	}
	return func() { l.sem.Release(w) }, nil
}

// Limits that keep extractive reports short enough to fit many into a context window.
const (
	titleEntities   = 3
	summaryEntities = 4
	maxFindings     = 5
	maxSummaryRunes = 500
)

// Reports implements pipeline.Reporter.
func (x *Extractive) Reports(ctx context.Context, store graph.ReadWriter, communities []graph.Community) error {
	size := x.Batch
	if size <= 0 {
		size = defaultBatch
	}
	if d, ok := store.(graph.CommunityDigester); ok {
		return x.fromDigests(ctx, store, d, communities, size)
	}
	limit := newMemberLimiter()
	for start := 0; start < len(communities); start += size {
		part := slices.Clone(communities[start:min(start+size, len(communities))])
		reps := make([]Report, len(part))
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(cmp.Or(max(x.Concurrency, 0), 4))
		for i := range part {
			g.Go(func() error {
				release, err := limit.acquire(gctx, part[i])
				if err != nil {
					return err
				}
				defer release()
				m, err := store.CommunityMembers(gctx, part[i].ID, maxFindings)
				if err != nil {
					return fmt.Errorf("read members of community %s: %w", part[i].ID, err)
				}
				reps[i] = buildReport(m)
				return nil
			})
		}
		if err := g.Wait(); err != nil {
			return err
		}
		if err := write(ctx, store, x.Embedder, part, reps); err != nil {
			return err
		}
	}
	return nil
}

// fromDigests builds the reports from the digests of a store that reads them in one pass, and
// writes them size communities at a time. A report names a few members and relations; on the
// embedded store reading each community's members and relations apart was most of the stage.
func (x *Extractive) fromDigests(ctx context.Context, store graph.Writer, d graph.CommunityDigester, communities []graph.Community, size int) error {
	ids := make([]string, len(communities))
	for i, c := range communities {
		ids[i] = c.ID
	}
	var part []graph.Community
	var reps []Report
	err := d.CommunityDigests(ctx, ids, max(titleEntities, summaryEntities), maxFindings, func(i int, dg graph.CommunityDigest) error {
		part = append(part, communities[i])
		reps = append(reps, buildFrom(dg.Entities, dg.EntityCount, dg.Relations, dg.RelationCount, dg.RelationWeight))
		if len(part) < size && i < len(communities)-1 {
			return nil
		}
		err := write(ctx, store, x.Embedder, part, reps)
		part, reps = nil, nil
		return err
	})
	if err != nil {
		return fmt.Errorf("read community digests: %w", err)
	}
	return nil
}

// write stores reports on their communities with the embedding of title and summary.
func write(ctx context.Context, store graph.Writer, emb embedding.Embedder, part []graph.Community, reps []Report) error {
	texts := make([]string, len(part))
	for i, r := range reps {
		body, err := json.Marshal(r)
		if err != nil {
			return fmt.Errorf("encode report of %s: %w", part[i].ID, err)
		}
		part[i].Title, part[i].Summary, part[i].Rating, part[i].Report = r.Title, r.Summary, r.Rating, string(body)
		texts[i] = r.Title + "\n" + r.Summary
	}
	vecs, err := emb.Embed(ctx, texts)
	if err != nil {
		return fmt.Errorf("embed community reports: %w", err)
	}
	for i := range part {
		part[i].Embedding = vecs[i]
	}
	if err := store.Apply(ctx, graph.Batch{Communities: part}); err != nil {
		return fmt.Errorf("write community reports: %w", err)
	}
	return nil
}

// buildReport writes the extractive report of one community. It picks the few entities and
// relations it names without sorting or copying the rest: the largest communities of a huge
// graph have tens of thousands of members.
func buildReport(m graph.Members) Report {
	return buildFrom(m.Entities, len(m.Entities), m.Relations, m.RelationCount, m.RelationWeight)
}

// buildFrom writes the report of a community of count members, of which members holds at least
// the most connected and the ends of rels, the heaviest of its relCount relations of total
// weight.
func buildFrom(members []graph.Entity, count int, rels []graph.Relation, relCount int, weight float64) Report {
	entities := topk.Of(members, max(titleEntities, summaryEntities), func(a, b graph.Entity) int {
		return cmp.Or(cmp.Compare(b.Degree, a.Degree), cmp.Compare(a.ID, b.ID))
	})
	var names []string
	for _, e := range entities[:min(titleEntities, len(entities))] {
		names = append(names, e.Name)
	}
	r := Report{Title: joinNames(names, count)}

	var summary []string
	for _, e := range entities[:min(summaryEntities, len(entities))] {
		if s := textutil.FirstSentence(e.Description); s != "" && !slices.Contains(summary, s) {
			summary = append(summary, s)
		}
	}
	r.Summary = textutil.Clip(strings.Join(summary, " "), maxSummaryRunes)

	rels = rels[:min(maxFindings, len(rels))] // heaviest first
	name := make(map[string]string, 2*len(rels))
	for _, rel := range rels {
		name[rel.Source], name[rel.Target] = "", ""
	}
	for _, e := range members {
		if _, ok := name[e.ID]; ok {
			name[e.ID] = e.Name
		}
	}
	for _, rel := range rels {
		r.Findings = append(r.Findings, Finding{
			Summary:     name[rel.Source] + " – " + name[rel.Target],
			Explanation: textutil.FirstSentence(rel.Description),
		})
	}
	// Bigger, denser communities matter more to a reader: log-scaled so that ratings spread over
	// 0–10 for communities of a handful to thousands of entities.
	r.Rating = math.Round(min(10, math.Log2(1+float64(count))+math.Log2(1+weight)/2)*10) / 10
	r.RatingExplanation = fmt.Sprintf("extractive: %d entities, %d relations, total relation weight %.0f", count, relCount, weight)
	return r
}

func joinNames(names []string, total int) string {
	switch {
	case len(names) == 0:
		return "Empty community"
	case total > len(names):
		return strings.Join(names, ", ") + fmt.Sprintf(" and %d more", total-len(names))
	case len(names) == 1:
		return names[0]
	default:
		return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
	}
}
