package retrieval

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/stratarag/strata/internal/embedded"
	"github.com/stratarag/strata/internal/embedding"
	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/tokenizer"
)

// TestLCADiagnosis explains, question by question, the gold documents hi ranks in its top 5 and
// lca does not: where lca's own evidence has them (the rank of the document in each of its
// channels: lexical, the seeds' chunks, the chunks of the seeds' relations; whether a seed is
// mentioned in it at all; whether the paths to the lowest common ancestors touch it) and which
// of hi's channels lca lacks brought them (walk, about, names). It is a measurement, not a
// check: set STRATA_LCA_DIAG to "STORE=QUESTIONS[,STORE=QUESTIONS…]" (offline embedded stores
// built with --arch, e.g. by bench/retrieval/table.py --work, and their eval questions) and run
// with -v; without it the test is skipped. docs/RETRIEVAL.md ("Why lca lost to hi") has the
// findings.
func TestLCADiagnosis(t *testing.T) {
	spec := os.Getenv("STRATA_LCA_DIAG")
	if spec == "" {
		t.Skip("set STRATA_LCA_DIAG=STORE=QUESTIONS[,…]")
	}
	ctx := context.Background()
	tok, err := tokenizer.New()
	if err != nil {
		t.Fatal(err)
	}
	total := map[string]int{}
	for _, pair := range strings.Split(spec, ",") {
		dir, qfile, ok := strings.Cut(pair, "=")
		if !ok {
			t.Fatalf("%q: want STORE=QUESTIONS", pair)
		}
		store, err := embedded.Open(ctx, dir, embedded.Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		e := &Engine{Store: store, Embedder: embedding.NewOffline(384), Tokenizer: tok}
		for _, q := range diagQuestions(t, qfile) {
			for k, v := range diagnose(ctx, t, e, q) {
				total[k] += v
			}
		}
		store.Close()
	}
	keys := make([]string, 0, len(total))
	for k := range total {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		t.Logf("total %-40s %d", k, total[k])
	}
}

type diagQuestion struct {
	ID       string   `json:"id"`
	Question string   `json:"question"`
	Gold     []string `json:"gold"`
}

func diagQuestions(t *testing.T, path string) []diagQuestion {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var qs []diagQuestion
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var q diagQuestion
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
			t.Fatal(err)
		}
		qs = append(qs, q)
	}
	return qs
}

// docRank returns the 1-based rank of doc among the documents of chunks (0: absent).
func docRank(chunks []graph.Chunk, doc string) int {
	var seen []string
	for _, c := range chunks {
		if !slices.Contains(seen, c.DocumentID) {
			seen = append(seen, c.DocumentID)
			if c.DocumentID == doc {
				return len(seen)
			}
		}
	}
	return 0
}

// diagnose logs one question's lost gold documents and returns counts by cause.
func diagnose(ctx context.Context, t *testing.T, e *Engine, q diagQuestion) map[string]int {
	docsOf := func(m Mode) []string {
		opt := DefaultOptions(m)
		opt.ContextOnly, opt.TopK = true, 10
		res, err := e.Query(ctx, q.Question, opt)
		if err != nil {
			t.Fatal(err)
		}
		var docs []string
		for _, c := range res.Context.Chunks {
			if !slices.Contains(docs, c.DocumentID) {
				docs = append(docs, c.DocumentID)
			}
		}
		return docs
	}
	hiDocs, lcaDocs := docsOf(ModeHi), docsOf(ModeLCA)
	counts := map[string]int{}
	var lost []string
	for _, g := range q.Gold {
		in := func(docs []string) bool { return slices.Contains(docs[:min(5, len(docs))], g) }
		switch {
		case in(hiDocs) && !in(lcaDocs):
			lost = append(lost, g)
		case in(lcaDocs) && !in(hiDocs):
			counts["gold in lca top 5, not hi's"]++
		}
	}
	if len(lost) == 0 {
		return counts
	}
	opt := DefaultOptions(ModeLCA)
	opt.TopK = 10
	qvec, err := embedding.EmbedQuery(ctx, e.Embedder, []string{q.Question})
	if err != nil {
		t.Fatal(err)
	}
	f, err := e.lcaFind(ctx, q.Question, qvec[0], opt, func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	onPath := pathNodes(f.groups, f.h.Links)
	byID := map[string]graph.Entity{}
	for _, en := range f.h.Entities {
		byID[en.ID] = en
	}
	_, baseRels := lcaRelations(f.h, onPath, byID)
	lx, err := e.lcaLexical(ctx, q.Question, qvec[0], opt)
	if err != nil {
		t.Fatal(err)
	}
	channels, _, err := e.lcaChannels(ctx, q.Question, qvec[0], opt, f, baseRels, lx)
	if err != nil {
		t.Fatal(err)
	}
	// Every chunk of the seeds, not only the top 30 lca ranks.
	all, err := e.Store.ExpandLocal(ctx, f.seeds, graph.LocalOptions{TopChunks: 10000})
	if err != nil {
		t.Fatal(err)
	}
	// hi's channels lca lacks.
	hiOpt := DefaultOptions(ModeHi)
	cands, err := e.hybridSearch(ctx, graph.EntityEmbedding, graph.EntityText, q.Question, qvec[0], hiOpt.Entities*hiOversample, 1)
	if err != nil {
		t.Fatal(err)
	}
	rank := map[string]int{}
	for i, h := range cands {
		rank[h.ID] = i
	}
	hiLinks, err := e.walkLinks(ctx, channels[0].chunks)
	if err != nil {
		t.Fatal(err)
	}
	walked, about, err := e.walkChunks(ctx, hiLinks, rank)
	if err != nil {
		t.Fatal(err)
	}
	docs, err := e.Store.Documents(ctx, channelDocuments([]channel{channels[0], {0, walked}, {0, about}}))
	if err != nil {
		t.Fatal(err)
	}
	named := namedDocuments(q.Question, docs, channels[0].chunks)

	groups := make([]string, len(f.groups))
	for i, g := range f.groups {
		groups[i] = fmt.Sprintf("%d→L%d", len(g.seeds), byID[g.lca].Layer)
	}
	t.Logf("%s %q seeds %v groups %v top5 hi %v lca %v", q.ID, q.Question, f.seeds, groups, hiDocs[:min(5, len(hiDocs))], lcaDocs[:min(5, len(lcaDocs))])
	for _, g := range lost {
		lr := slices.Index(lcaDocs, g) + 1
		lex, seeds, rels := docRank(channels[0].chunks, g), 0, 0
		if len(channels) > 1 {
			seeds = docRank(channels[1].chunks, g)
		}
		if len(channels) > 2 {
			rels = docRank(channels[2].chunks, g)
		}
		mentioned := 0.0 // the most seeds a chunk of g mentions
		for _, c := range all.Chunks {
			if c.DocumentID == g {
				mentioned = max(mentioned, c.Score)
			}
		}
		w, a := docRank(walked, g), docRank(about, g)
		var cause string
		switch {
		case seeds == 0 && rels == 0 && mentioned == 0:
			cause = "no seed in it"
		case seeds == 0 && rels == 0:
			cause = "seed in it, chunk cut by TopChunks"
		default:
			cause = "reached, outranked"
		}
		var hiBy []string
		if w > 0 && w <= 5 {
			hiBy = append(hiBy, "walk")
		}
		if a > 0 && a <= 5 {
			hiBy = append(hiBy, "about")
		}
		if named[g] > 0 {
			hiBy = append(hiBy, "names")
		}
		if len(hiBy) == 0 {
			hiBy = append(hiBy, "other")
		}
		counts["lost: "+cause]++
		counts["lost, hi by: "+strings.Join(hiBy, "+")]++
		if lex > 0 && lex <= 5 {
			counts["lost, lexical top 5"]++
		}
		t.Logf("  lost %-40q lca rank %2d | lexical %2d seeds' chunks %2d relations %2d, seeds in a chunk of it %.0f | hi rank %d, walk %d about %d named %.2f",
			g, lr, lex, seeds, rels, mentioned, slices.Index(hiDocs, g)+1, w, a, named[g])
	}
	return counts
}
