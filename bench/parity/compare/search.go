package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/stratarag/strata/internal/embedding"
	"github.com/stratarag/strata/internal/graph"
)

// searchRow compares one index's hits for every question: the searches every retrieval mode
// starts from, so that a recall difference can be traced to vector or full-text search.
type searchRow struct {
	Search       string  `json:"search"`
	K            int     `json:"k"`
	Questions    int     `json:"questions"`
	SameOrder    int     `json:"same_order"`     // questions whose hit lists are identical
	SameSet      int     `json:"same_set"`       // … hold the same ids in any order
	MeanOverlap  float64 `json:"mean_overlap"`   // |ids in both| / max(len) per question, averaged
	MaxScoreDiff float64 `json:"max_score_diff"` // over ids both return
	// Missed counts, for vector searches (same score scale on both), the hits of the embedded
	// store's exact scan that Neo4j left out although they score above Neo4j's last hit.
	Missed int `json:"missed,omitempty"`
}

func runSearch(args []string) error {
	fs := flag.NewFlagSet("search", flag.ContinueOnError)
	dir := fs.String("data-dir", "", "embedded store directory")
	questions := fs.String("questions", "", "questions file (JSON Lines with a \"question\" field)")
	k := fs.Int("k", 40, "hits per search (naive mode asks for 4 × top-k = 40)")
	jsonOut := fs.String("json", "", "also write the rows as JSON to this file")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dir == "" || *questions == "" {
		return fmt.Errorf("search: -data-dir and -questions are required")
	}
	qs, err := readQuestions(*questions)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	emb, neo, err := openBoth(ctx, *dir)
	if err != nil {
		return err
	}
	defer emb.Close()
	defer neo.Close()
	embedder, err := offlineEmbedder(ctx, emb)
	if err != nil {
		return err
	}
	vecs, err := embedding.EmbedQuery(ctx, embedder, qs)
	if err != nil {
		return fmt.Errorf("embed the questions: %w", err)
	}

	type search struct {
		name   string
		vector bool
		run    func(s graph.Searcher, i int) ([]graph.Hit, error)
	}
	vector := func(index graph.VectorIndex) search {
		return search{"vector " + string(index), true, func(s graph.Searcher, i int) ([]graph.Hit, error) {
			return s.VectorSearch(ctx, index, vecs[i], *k)
		}}
	}
	text := func(index graph.TextIndex) search {
		return search{"text " + string(index), false, func(s graph.Searcher, i int) ([]graph.Hit, error) {
			return s.TextSearch(ctx, index, qs[i], *k)
		}}
	}
	var rows []searchRow
	for _, sr := range []search{vector(graph.ChunkEmbedding), text(graph.ChunkText), vector(graph.EntityEmbedding), text(graph.EntityText)} {
		row := searchRow{Search: sr.name, K: *k, Questions: len(qs)}
		for i := range qs {
			a, err := sr.run(emb, i)
			if err != nil {
				return fmt.Errorf("%s on the embedded store: %w", sr.name, err)
			}
			b, err := sr.run(neo, i)
			if err != nil {
				return fmt.Errorf("%s on neo4j: %w", sr.name, err)
			}
			order, set, overlap, diff := compareHits(a, b)
			row.SameOrder += b2i(order)
			row.SameSet += b2i(set)
			row.MeanOverlap += overlap / float64(len(qs))
			row.MaxScoreDiff = max(row.MaxScoreDiff, diff)
			if sr.vector {
				row.Missed += missed(a, b)
			}
		}
		rows = append(rows, row)
	}
	printSearch(os.Stdout, rows)
	return writeJSONFile(*jsonOut, rows)
}

// offlineEmbedder is the embedder the store was built with; only the offline one runs here.
func offlineEmbedder(ctx context.Context, s graph.MetaReader) (embedding.Embedder, error) {
	model, _, err := s.Meta(ctx, graph.MetaEmbeddingModel)
	if err != nil {
		return nil, fmt.Errorf("read the embedding model: %w", err)
	}
	if model != embedding.OfflineModel {
		return nil, fmt.Errorf("the store was embedded with %q; search comparison needs the offline model %q", model, embedding.OfflineModel)
	}
	dims, _, err := s.Meta(ctx, graph.MetaEmbeddingDims)
	if err != nil {
		return nil, fmt.Errorf("read the embedding dimension: %w", err)
	}
	n, err := strconv.Atoi(dims)
	if err != nil {
		return nil, fmt.Errorf("embedding dimension %q: %w", dims, err)
	}
	return embedding.NewOffline(n), nil
}

// compareHits compares two hit lists: same ids in the same order, same set, the share of ids
// they have in common, and the largest score difference over those.
func compareHits(a, b []graph.Hit) (sameOrder, sameSet bool, overlap, maxDiff float64) {
	sameOrder = len(a) == len(b)
	scores := make(map[string]float64, len(a))
	for i, h := range a {
		scores[h.ID] = h.Score
		if sameOrder && b[i].ID != h.ID {
			sameOrder = false
		}
	}
	common := 0
	for _, h := range b {
		if s, ok := scores[h.ID]; ok {
			common++
			maxDiff = max(maxDiff, math.Abs(s-h.Score))
		}
	}
	n := max(len(a), len(b))
	if n == 0 {
		return true, true, 1, 0
	}
	return sameOrder, common == len(a) && common == len(b), float64(common) / float64(n), maxDiff
}

// missed counts the hits of exact that approx lacks although they score above approx's last hit.
func missed(exact, approx []graph.Hit) int {
	if len(approx) == 0 {
		return len(exact)
	}
	in := make(map[string]bool, len(approx))
	for _, h := range approx {
		in[h.ID] = true
	}
	floor := approx[len(approx)-1].Score
	n := 0
	for _, h := range exact {
		if !in[h.ID] && h.Score > floor+1e-6 {
			n++
		}
	}
	return n
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func readQuestions(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open questions: %w", err)
	}
	defer f.Close()
	var qs []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for line := 1; sc.Scan(); line++ {
		if len(sc.Bytes()) == 0 {
			continue
		}
		var q struct {
			Question string `json:"question"`
		}
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		qs = append(qs, q.Question)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return qs, nil
}

func printSearch(w io.Writer, rows []searchRow) {
	fmt.Fprintf(w, "%-24s %4s %11s %9s %12s %14s %8s\n", "search (per question)", "k", "same order", "same set", "mean overlap", "max |Δscore|", "missed")
	for _, r := range rows {
		miss := "-"
		if strings.HasPrefix(r.Search, "vector") {
			miss = strconv.Itoa(r.Missed)
		}
		fmt.Fprintf(w, "%-24s %4d %5d/%-5d %4d/%-4d %12.3f %14.3g %8s\n", r.Search, r.K,
			r.SameOrder, r.Questions, r.SameSet, r.Questions, r.MeanOverlap, r.MaxScoreDiff, miss)
	}
	fmt.Fprintln(w, "(text scores are on different scales: Lucene BM25 on Neo4j, -bm25() of SQLite FTS5 embedded;")
	fmt.Fprintln(w, " missed: hits of the embedded exact scan absent from Neo4j's although they score above its last hit)")
	fmt.Fprintln(w)
}
