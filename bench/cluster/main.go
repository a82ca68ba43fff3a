// Command cluster is the Go half of the side-by-side benchmark of HiIndex clustering driven by
// run.sh: strata's cluster.Select against scikit-learn's GaussianMixture in HiRAG's search for
// the number of components (k = 1, 2, … up to 50, stopping when the BIC changes by less than
// 1e-3 relatively, keeping the lowest BIC).
//
// Usage:
//
//	cluster gen -kind blobs|embed [-n 10000] [-d 10] [-seed 1] -o FILE
//	cluster run [-cov full|diag] [-max 50] FILE...
//
// gen writes whitespace-separated rows that both sides read. "blobs" is d-dimensional data
// drawn from 8 well-separated, randomly rotated Gaussian blobs; "embed" imitates a layer of entity
// embeddings: 384-dimensional unit vectors mixing one or two of 30 topic directions with noise,
// reduced to d dimensions by cluster.PCA, as HiIndex does before clustering.
//
// run times only the call to cluster.Select, not parsing, and prints one JSON object per file.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/stratarag/strata/internal/cluster"
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
		err = run(os.Args[2:])
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "cluster:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: cluster gen -kind blobs|embed [flags] -o FILE | cluster run [-cov full|diag] [-max 50] FILE...")
	os.Exit(2)
}

func gen(args []string) error {
	fs := flag.NewFlagSet("gen", flag.ContinueOnError)
	kind := fs.String("kind", "blobs", "blobs or embed")
	n := fs.Int("n", 10000, "rows")
	d := fs.Int("d", 10, "dimensions of the output")
	seed := fs.Uint64("seed", 1, "random seed")
	out := fs.String("o", "", "output file")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" {
		return fmt.Errorf("gen: -o is required")
	}
	rng := rand.New(rand.NewPCG(*seed, 1))
	var rows [][]float64
	switch *kind {
	case "blobs":
		rows = blobs(rng, *n, *d, 8)
	case "embed":
		var err error
		if rows, err = cluster.PCA(embeddings(rng, *n, 384, 30), *d); err != nil {
			return fmt.Errorf("gen: %w", err)
		}
	default:
		return fmt.Errorf("gen: unknown kind %q", *kind)
	}
	f, err := os.Create(*out)
	if err != nil {
		return fmt.Errorf("gen: %w", err)
	}
	w := bufio.NewWriter(f)
	for _, r := range rows {
		for j, v := range r {
			if j > 0 {
				w.WriteByte(' ')
			}
			w.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
		}
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("gen: %w", err)
	}
	return f.Close()
}

// blobs draws n rows from k Gaussian blobs in d dimensions with random rotations and scales
// (standard deviations up to about 2) and centres at least 15 apart.
func blobs(rng *rand.Rand, n, d, k int) [][]float64 {
	centers := make([][]float64, 0, k)
	for len(centers) < k {
		c := make([]float64, d)
		for a := range c {
			c[a] = (rng.Float64()*2 - 1) * 20
		}
		ok := true
		for _, o := range centers {
			s := 0.0
			for a := range c {
				s += (c[a] - o[a]) * (c[a] - o[a])
			}
			ok = ok && s >= 15*15
		}
		if ok {
			centers = append(centers, c)
		}
	}
	mix := make([][]float64, k)
	for j := range mix {
		mix[j] = make([]float64, d*d)
		for i := range mix[j] {
			mix[j][i] = rng.NormFloat64() * 0.4
		}
		for a := 0; a < d; a++ {
			mix[j][a*d+a] += 0.5
		}
	}
	rows := make([][]float64, n)
	z := make([]float64, d)
	for i := range rows {
		j := rng.IntN(k)
		for a := range z {
			z[a] = rng.NormFloat64()
		}
		r := make([]float64, d)
		for a := range r {
			r[a] = centers[j][a]
			for b, v := range z {
				r[a] += mix[j][a*d+b] * v
			}
		}
		rows[i] = r
	}
	return rows
}

// embeddings imitates entity embeddings: unit vectors in d dimensions, each a mix of one or two
// of t random topic directions plus isotropic noise.
func embeddings(rng *rand.Rand, n, d, t int) [][]float32 {
	topics := make([][]float64, t)
	for j := range topics {
		topics[j] = make([]float64, d)
		for a := range topics[j] {
			topics[j][a] = rng.NormFloat64()
		}
	}
	rows := make([][]float32, n)
	v := make([]float64, d)
	for i := range rows {
		p, q := rng.IntN(t), rng.IntN(t)
		mixQ := 0.0
		if rng.IntN(3) == 0 {
			mixQ = rng.Float64() * 0.5
		}
		norm := 0.0
		for a := range v {
			v[a] = topics[p][a] + mixQ*topics[q][a] + 0.8*rng.NormFloat64()
			norm += v[a] * v[a]
		}
		norm = math.Sqrt(norm)
		r := make([]float32, d)
		for a := range r {
			r[a] = float32(v[a] / norm)
		}
		rows[i] = r
	}
	return rows
}

// result is one line of run's output.
type result struct {
	File    string    `json:"file"`
	N       int       `json:"n"`
	D       int       `json:"d"`
	Cov     string    `json:"cov"`
	K       int       `json:"k"`
	Fits    int       `json:"fits"`
	BIC     float64   `json:"bic"`
	BICs    []float64 `json:"bics"`
	Seconds float64   `json:"seconds"`
}

func run(args []string) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	cov := fs.String("cov", cluster.Full, "covariance type: full or diag")
	maxK := fs.Int("max", cluster.DefaultMaxComponents, "largest number of components")
	if err := fs.Parse(args); err != nil {
		return err
	}
	enc := json.NewEncoder(os.Stdout)
	for _, path := range fs.Args() {
		rows, err := read(path)
		if err != nil {
			return err
		}
		start := time.Now()
		g, bics, err := cluster.Select(rows, cluster.SelectOptions{
			MaxComponents: *maxK,
			GMM:           cluster.GMMOptions{Covariance: *cov},
		})
		secs := time.Since(start).Seconds()
		if err != nil {
			return fmt.Errorf("run %s: %w", path, err)
		}
		best := bics[0]
		for _, b := range bics {
			best = min(best, b)
		}
		r := result{
			File: filepath.Base(path), N: len(rows), D: len(rows[0]), Cov: *cov,
			K: g.K(), Fits: len(bics), BIC: best, BICs: bics, Seconds: secs,
		}
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	return nil
}

// read parses a file of whitespace-separated rows.
func read(path string) ([][]float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var rows [][]float64
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		r := make([]float64, len(fields))
		for j, s := range fields {
			if r[j], err = strconv.ParseFloat(s, 64); err != nil {
				return nil, fmt.Errorf("%s line %d: %w", path, len(rows)+1, err)
			}
		}
		rows = append(rows, r)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return rows, nil
}
