package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Targets of the parity issue.
const (
	maxModularityDiff = 0.01
	maxRecallDiff     = 0.02
)

// ingestReport is the part of `strata ingest --json` the report uses.
type ingestReport struct {
	Components  int                `json:"components"`
	Communities int                `json:"communities"`
	TimingsMS   map[string]float64 `json:"timings_ms"`
}

// evalReport is the part of `strata eval --json` the report uses.
type evalReport struct {
	Recall  map[string]float64 `json:"recall"`
	MeanMS  float64            `json:"mean_query_ms"`
	Results []struct {
		ID        string   `json:"id"`
		Documents []string `json:"documents"`
	} `json:"results"`
}

// wall is the wall time in seconds of each backend's ingest, written by run.sh. NeoCold is the
// first of two Neo4j ingests (PARITY_WARM=1): on a server run.sh started, a cold JVM.
type wall struct {
	Embedded float64  `json:"embedded"`
	Neo4j    float64  `json:"neo4j"`
	NeoCold  *float64 `json:"neo4j_cold"`
}

// row is one line of the summary table.
type row struct{ corpus, metric, emb, neo, diff, target, ok string }

// The ingest stages in run order; components and communities run on GDS in the Neo4j backend.
var (
	stages    = []string{"load", "documents", "embed", "layers", "components", "communities", "reports", "total"}
	gdsStages = []string{"components", "communities"}
	ks        = []string{"recall@2", "recall@5", "recall@10"}
)

func runReport(args []string) error {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	dir := fs.String("dir", "bench/out/parity", "directory run.sh wrote to")
	modes := fs.String("modes", "naive local hi global", "retrieval modes evaluated")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return fmt.Errorf("report: name at least one corpus")
	}
	var summary []row
	for _, corpus := range fs.Args() {
		rows, err := reportCorpus(os.Stdout, filepath.Join(*dir, corpus), corpus, strings.Fields(*modes))
		if err != nil {
			return fmt.Errorf("report %s: %w", corpus, err)
		}
		summary = append(summary, rows...)
	}
	printSummary(os.Stdout, summary)
	return nil
}

// reportCorpus prints the ingest and recall tables of one corpus and returns its summary rows.
func reportCorpus(w io.Writer, dir, corpus string, modes []string) ([]row, error) {
	var g graphReport
	var ie, in ingestReport
	var wt wall
	for file, v := range map[string]any{"graph.json": &g, "ingest-embedded.json": &ie, "ingest-neo4j.json": &in, "wall.json": &wt} {
		if err := readJSON(filepath.Join(dir, file), v); err != nil {
			return nil, err
		}
	}
	var rows []row
	add := func(metric, emb, neo, diff, target string, ok *bool) {
		r := row{corpus: corpus, metric: metric, emb: emb, neo: neo, diff: diff, target: target}
		if ok != nil {
			r.ok = yesNo(*ok)
		}
		rows = append(rows, r)
	}

	// Graph.
	equal := 0
	var differing []string
	for _, c := range g.Counts {
		if c.Embedded == c.Neo4j {
			equal++
		} else {
			differing = append(differing, fmt.Sprintf("%s %+d", c.Name, c.Neo4j-c.Embedded))
		}
	}
	ok := equal == len(g.Counts)
	add(fmt.Sprintf("counts per label/type (%d)", len(g.Counts)), "", "", fmt.Sprintf("%d/%d equal %s", equal, len(g.Counts), strings.Join(differing, " ")), "all equal", &ok)
	for _, c := range g.Checks {
		same := c.Same
		target := "identical"
		if c.Name == "entity embeddings" {
			target = "identical (float32)"
		}
		add(c.Name, fmt.Sprint(c.Embedded), fmt.Sprint(c.Neo4j), map[bool]string{true: "same", false: "DIFFERENT"}[same], target, &same)
	}
	for _, l := range g.Levels {
		d := l.ModNeo4j - l.ModEmbedded
		okQ := math.Abs(d) <= maxModularityDiff
		part := ""
		if l.SameEntityGraphs {
			part = fmt.Sprintf(" (same partition: %s, NMI %.3f)", yesNo(l.SamePartition), l.NMI)
		}
		add(fmt.Sprintf("level %d communities", l.Level), fmt.Sprint(l.Embedded), fmt.Sprint(l.Neo4j), fmt.Sprintf("%+d%s", l.Neo4j-l.Embedded, part), "", nil)
		add(fmt.Sprintf("level %d modularity", l.Level), fmt.Sprintf("%.4f", l.ModEmbedded), fmt.Sprintf("%.4f", l.ModNeo4j), fmt.Sprintf("%+.4f", d), fmt.Sprintf("|Δ| <= %.2f", maxModularityDiff), &okQ)
	}

	// Searches (only when the corpus has questions).
	var searches []searchRow
	if err := readJSON(filepath.Join(dir, "search.json"), &searches); err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	for _, r := range searches {
		d := fmt.Sprintf("same order %d/%d, same set %d/%d", r.SameOrder, r.Questions, r.SameSet, r.Questions)
		if r.Missed > 0 {
			d += fmt.Sprintf(", %d better hits missed", r.Missed)
		}
		add(fmt.Sprintf("%s top-%d", r.Search, r.K), "", "", d, "", nil)
	}

	// Ingest.
	var cold ingestReport
	if wt.NeoCold != nil {
		if err := readJSON(filepath.Join(dir, "ingest-neo4j-cold.json"), &cold); err != nil {
			return nil, err
		}
	}
	fmt.Fprintf(w, "== %s: ingest stage timings (ms)\n", corpus)
	fmt.Fprintf(w, "%-12s %10s %10s %8s %12s\n", "stage", "embedded", "neo4j", "ratio", "neo4j 1st")
	for _, s := range stages {
		fmt.Fprintf(w, "%-12s %10.0f %10.0f %8s %12s\n", s, ie.TimingsMS[s], in.TimingsMS[s],
			ratio(in.TimingsMS[s], ie.TimingsMS[s]), coldValue(wt.NeoCold != nil, "%.0f", cold.TimingsMS[s]))
	}
	fmt.Fprintf(w, "%-12s %10.2f %10.2f %8s %12s\n\n", "wall (s)", wt.Embedded, wt.Neo4j,
		ratio(wt.Neo4j, wt.Embedded), coldValue(wt.NeoCold != nil, "%.2f", deref(wt.NeoCold)))
	add("ingest wall time (s)", fmt.Sprintf("%.2f", wt.Embedded), fmt.Sprintf("%.2f", wt.Neo4j), "x"+ratio(wt.Neo4j, wt.Embedded), "", nil)
	if wt.NeoCold != nil {
		add("  first neo4j run (s)", "", fmt.Sprintf("%.2f", *wt.NeoCold), "x"+ratio(*wt.NeoCold, wt.Embedded), "", nil)
	}
	add("GDS stages (ms)", fmt.Sprintf("%.0f", sum(ie.TimingsMS, gdsStages)), fmt.Sprintf("%.0f", sum(in.TimingsMS, gdsStages)), "", "", nil)
	add("GDS share of ingest", share(ie.TimingsMS), share(in.TimingsMS), "", "", nil)
	if wt.NeoCold != nil {
		add("  first neo4j run", "", share(cold.TimingsMS), "", "", nil)
	}

	// Recall.
	var qn int
	fmt.Fprintf(w, "== %s: recall of gold documents\n", corpus)
	fmt.Fprintf(w, "%-7s %-10s %9s %9s %8s\n", "mode", "k", "embedded", "neo4j", "diff")
	for _, m := range modes {
		var e, n evalReport
		errE := readJSON(filepath.Join(dir, "eval-embedded-"+m+".json"), &e)
		errN := readJSON(filepath.Join(dir, "eval-neo4j-"+m+".json"), &n)
		if os.IsNotExist(errE) && os.IsNotExist(errN) {
			continue // no questions for this corpus
		}
		if errE != nil {
			return nil, errE
		}
		if errN != nil {
			return nil, errN
		}
		qn = len(e.Results)
		empty := noDocuments(e) && noDocuments(n)
		for _, k := range ks {
			d := n.Recall[k] - e.Recall[k]
			okR := math.Abs(d) <= maxRecallDiff+1e-9
			fmt.Fprintf(w, "%-7s %-10s %9.3f %9.3f %+8.3f\n", m, k, e.Recall[k], n.Recall[k], d)
			if empty {
				add(m+" "+k, fmt.Sprintf("%.3f", e.Recall[k]), fmt.Sprintf("%.3f", n.Recall[k]), fmt.Sprintf("%+.3f", d), "n/a: no chunks", nil)
			} else {
				add(m+" "+k, fmt.Sprintf("%.3f", e.Recall[k]), fmt.Sprintf("%.3f", n.Recall[k]), fmt.Sprintf("%+.3f", d), fmt.Sprintf("|Δ| <= %.2f", maxRecallDiff), &okR)
			}
		}
		if empty {
			fmt.Fprintf(w, "%-7s (no chunks in any context on either backend: recall is 0 by construction)\n", m)
		}
		same, total := sameRankings(e, n)
		fmt.Fprintf(w, "%-7s %-10s %9.1f %9.1f   (mean query ms); same ranked documents in %d/%d questions\n", m, "", e.MeanMS, n.MeanMS, same, total)
		add(m+" same ranking", "", "", fmt.Sprintf("%d/%d questions", same, total), "", nil)
	}
	if qn > 0 {
		fmt.Fprintf(w, "(%d questions)\n", qn)
	}
	fmt.Fprintln(w)
	return rows, nil
}

// noDocuments says whether no question got any document (global mode's context has no chunks).
func noDocuments(r evalReport) bool {
	for _, q := range r.Results {
		if len(q.Documents) > 0 {
			return false
		}
	}
	return true
}

// sameRankings counts the questions whose ranked documents are identical on both backends.
func sameRankings(a, b evalReport) (same, total int) {
	docs := map[string][]string{}
	for _, r := range b.Results {
		docs[r.ID] = r.Documents
	}
	for _, r := range a.Results {
		total++
		if d, ok := docs[r.ID]; ok && slices.Equal(d, r.Documents) {
			same++
		}
	}
	return same, total
}

func coldValue(ok bool, format string, v float64) string {
	if !ok {
		return "-"
	}
	return fmt.Sprintf(format, v)
}

func deref(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}

func sum(m map[string]float64, keys []string) float64 {
	var s float64
	for _, k := range keys {
		s += m[k]
	}
	return s
}

func share(m map[string]float64) string {
	if m["total"] == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.1f%%", 100*sum(m, gdsStages)/m["total"])
}

func ratio(a, b float64) string {
	if b == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.1f", a/b)
}

func readJSON(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("decode %s: %w", path, err)
	}
	return nil
}

func printSummary(w io.Writer, rows []row) {
	header := row{"corpus", "metric", "embedded", "neo4j", "diff", "target", "ok"}
	width := func(f func(row) string) int {
		n := len(f(header))
		for _, r := range rows {
			n = max(n, len([]rune(f(r))))
		}
		return n
	}
	cols := []func(row) string{
		func(r row) string { return r.corpus }, func(r row) string { return r.metric },
		func(r row) string { return r.emb }, func(r row) string { return r.neo },
		func(r row) string { return r.diff }, func(r row) string { return r.target },
		func(r row) string { return r.ok },
	}
	widths := make([]int, len(cols))
	for i, c := range cols {
		widths[i] = width(c)
	}
	line := func(r row) {
		var b strings.Builder
		for i, c := range cols {
			s := c(r)
			pad := widths[i] - len([]rune(s))
			if i == 2 || i == 3 { // numbers right-aligned
				b.WriteString(strings.Repeat(" ", pad) + s)
			} else {
				b.WriteString(s + strings.Repeat(" ", pad))
			}
			b.WriteString("  ")
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
	fmt.Fprintln(w, "== parity summary (neo4j vs embedded; diff = neo4j − embedded)")
	line(header)
	failed := 0
	for _, r := range rows {
		line(r)
		if r.ok == "NO" {
			failed++
		}
	}
	fmt.Fprintf(w, "%d of the rows with a target miss it\n", failed)
}
