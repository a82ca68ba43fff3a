package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stratarag/strata/internal/graphalgo"
)

// BenchmarkLeidenPlanted100k times graphalgo.Leiden on the large graph run.sh uses (generated
// in memory here, so the benchmark needs no files).
func BenchmarkLeidenPlanted100k(b *testing.B) {
	g, _, err := graphalgo.Planted(plantedDefaults())
	if err != nil {
		b.Fatal(err)
	}
	for _, iters := range []int{1, 0} {
		name := "until-stable"
		if iters == 1 {
			name = "one-iteration"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			seed := int64(0)
			var q float64
			for b.Loop() {
				r := graphalgo.Leiden(g, graphalgo.LeidenOptions{Seed: seed, Iterations: iters})
				q = r.Modularity[len(r.Modularity)-1]
				seed++
			}
			b.ReportMetric(q, "Q")
		})
	}
}

// TestGenAndRun checks the command end to end on a small graph.
func TestGenAndRun(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "small.edgelist")
	if err := gen([]string{"-n", "2000", "-o", path}); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Size() == 0 {
		t.Fatalf("generated file: %v", err)
	}
	var out bytes.Buffer
	if err := run([]string{"-seeds", "2", path}, &out); err != nil {
		t.Fatal(err)
	}
	var r result
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("output %q: %v", out.String(), err)
	}
	if r.Graph != "small" || r.N != 2000 || r.M == 0 || r.Q <= 0.3 || r.Communities < 2 || r.Runs != 2 {
		t.Errorf("unexpected result %+v", r)
	}
}
