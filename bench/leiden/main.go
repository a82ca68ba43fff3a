// Command leiden is the Go half of the side-by-side Leiden benchmark driven by run.sh. It
// generates the large planted-partition graph that both implementations read, and runs
// strata's Leiden on graph files, printing one JSON object per graph.
//
// Usage:
//
//	leiden gen [-n 100000] [-deg 20] [-mu 0.3] [-seed 1] -o FILE
//	leiden run [-seeds 5] FILE...
//
// run times only the call to graphalgo.Leiden, not parsing, and reports the best modularity
// over the seeds 0..seeds-1 and the mean time per run. Files ending in .gml are read as GML,
// anything else as an edge list.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/stratarag/strata/internal/graphalgo"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch os.Args[1] {
	case "gen":
		err = gen(os.Args[2:])
	case "run":
		err = run(os.Args[2:], os.Stdout)
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "leiden:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: leiden gen [flags] -o FILE | leiden run [-seeds N] FILE...")
	os.Exit(2)
}

// plantedDefaults describes the large benchmark graph: about 100k nodes and 1M edges with LFR-like
// degree and community size distributions.
func plantedDefaults() graphalgo.PlantedConfig {
	return graphalgo.PlantedConfig{
		N: 100_000, AvgDegree: 21, MaxDegree: 200, DegreeExp: 2.5,
		MinCommunity: 50, MaxCommunity: 2000, CommunityExp: 1.5,
		Mu: 0.3, Seed: 1,
	}
}

func gen(args []string) error {
	cfg := plantedDefaults()
	fs := flag.NewFlagSet("gen", flag.ContinueOnError)
	fs.IntVar(&cfg.N, "n", cfg.N, "number of nodes")
	fs.Float64Var(&cfg.AvgDegree, "deg", cfg.AvgDegree, "mean degree")
	fs.Float64Var(&cfg.Mu, "mu", cfg.Mu, "mixing parameter")
	fs.Int64Var(&cfg.Seed, "seed", cfg.Seed, "random seed")
	out := fs.String("o", "", "output edge list")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" {
		return fmt.Errorf("gen: -o is required")
	}
	g, _, err := graphalgo.Planted(cfg)
	if err != nil {
		return fmt.Errorf("gen: %w", err)
	}
	f, err := os.Create(*out)
	if err != nil {
		return fmt.Errorf("gen: %w", err)
	}
	if err := graphalgo.WriteEdgeList(f, g); err != nil {
		f.Close()
		return fmt.Errorf("gen %s: %w", *out, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("gen %s: %w", *out, err)
	}
	fmt.Fprintf(os.Stderr, "wrote %s: %d nodes, %d edges\n", *out, g.NumNodes(), g.NumEdges())
	return nil
}

// result is one line of run's output; bench/leiden/ref.py prints the same fields.
type result struct {
	Graph       string  `json:"graph"`
	N           int     `json:"n"`
	M           int     `json:"m"`
	Q           float64 `json:"q"`
	Communities int     `json:"communities"`
	Seconds     float64 `json:"seconds"`
	Runs        int     `json:"runs"`
}

func run(args []string, w io.Writer) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	seeds := fs.Int("seeds", 5, "number of seeds (runs) per graph")
	if err := fs.Parse(args); err != nil {
		return err
	}
	enc := json.NewEncoder(w)
	for _, path := range fs.Args() {
		g, err := readGraph(path)
		if err != nil {
			return err
		}
		res := result{Graph: strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)),
			N: g.NumNodes(), M: g.NumEdges(), Q: -1, Runs: *seeds}
		var total time.Duration
		for s := range *seeds {
			start := time.Now()
			r := graphalgo.Leiden(g, graphalgo.LeidenOptions{Seed: int64(s)})
			total += time.Since(start)
			if q := r.Modularity[len(r.Modularity)-1]; q > res.Q {
				res.Q = q
				res.Communities = 0
				for _, c := range r.Final() {
					res.Communities = max(res.Communities, c+1)
				}
			}
		}
		res.Seconds = total.Seconds() / float64(*seeds)
		if err := enc.Encode(res); err != nil {
			return err
		}
	}
	return nil
}

func readGraph(path string) (*graphalgo.Graph, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var g *graphalgo.Graph
	if strings.HasSuffix(path, ".gml") {
		g, _, err = graphalgo.ReadGML(f)
	} else {
		g, err = graphalgo.ReadEdgeList(f)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return g, nil
}
