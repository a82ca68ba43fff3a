package cluster

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"testing"
)

// blobSpec describes generated test data: k Gaussian blobs in d dimensions, centres in a box of
// half-width sep, standard deviations between 0.5 and 1.5.
type blobSpec struct {
	n, d, k int
	sep     float64
	// aniso draws every blob's covariance as a random full matrix rather than a diagonal one.
	aniso bool
	seed  uint64
}

// makeBlobs returns rows and true labels for spec. Blob sizes differ (by up to a factor of 2)
// so that weights matter.
func makeBlobs(spec blobSpec) ([][]float64, []int) {
	rng := rand.New(rand.NewPCG(spec.seed, 7))
	d, k := spec.d, spec.k
	// Centres are drawn in a box of half-width sep and kept only when at least 12 units (about
	// ten standard deviations) from every other centre, so that the blobs are well separated.
	centers := make([][]float64, 0, k)
	for len(centers) < k {
		c := make([]float64, d)
		for a := range c {
			c[a] = (rng.Float64()*2 - 1) * spec.sep
		}
		ok := true
		for _, o := range centers {
			if dist2(c, o) < 12*12 {
				ok = false
			}
		}
		if ok {
			centers = append(centers, c)
		}
	}
	mix := make([][]float64, k) // d×d, row-major
	for j := range mix {
		mix[j] = make([]float64, d*d)
		for a := 0; a < d; a++ {
			if spec.aniso {
				for b := 0; b < d; b++ {
					mix[j][a*d+b] = rng.NormFloat64() * 0.5
				}
				mix[j][a*d+a] += 0.5
			} else {
				mix[j][a*d+a] = 0.5 + rng.Float64()
			}
		}
	}
	sizes := make([]float64, k)
	total := 0.0
	for j := range sizes {
		sizes[j] = 1 + rng.Float64()
		total += sizes[j]
	}
	rows := make([][]float64, spec.n)
	labels := make([]int, spec.n)
	z := make([]float64, d)
	j, acc := 0, sizes[0]/total*float64(spec.n)
	for i := range rows {
		for float64(i) >= acc && j < k-1 {
			j++
			acc += sizes[j] / total * float64(spec.n)
		}
		for a := range z {
			z[a] = rng.NormFloat64()
		}
		r := make([]float64, d)
		for a := 0; a < d; a++ {
			r[a] = centers[j][a] + dot(mix[j][a*d:(a+1)*d], z)
		}
		rows[i], labels[i] = r, j
	}
	rng.Shuffle(len(rows), func(a, b int) {
		rows[a], rows[b] = rows[b], rows[a]
		labels[a], labels[b] = labels[b], labels[a]
	})
	return rows, labels
}

// ari returns the adjusted Rand index of two labelings: 1 for identical partitions up to
// renaming, about 0 for independent ones.
func ari(a, b []int) float64 {
	type pair struct{ x, y int }
	joint := map[pair]float64{}
	ca, cb := map[int]float64{}, map[int]float64{}
	for i := range a {
		joint[pair{a[i], b[i]}]++
		ca[a[i]]++
		cb[b[i]]++
	}
	c2 := func(x float64) float64 { return x * (x - 1) / 2 }
	var sj, sa, sb float64
	for _, v := range joint {
		sj += c2(v)
	}
	for _, v := range ca {
		sa += c2(v)
	}
	for _, v := range cb {
		sb += c2(v)
	}
	expected := sa * sb / c2(float64(len(a)))
	maxIndex := (sa + sb) / 2
	if maxIndex == expected {
		return 1
	}
	return (sj - expected) / (maxIndex - expected)
}

// argmax returns, per row, the index of the largest value.
func argmax(p [][]float64) []int {
	out := make([]int, len(p))
	for i, row := range p {
		for j, v := range row {
			if v > row[out[i]] {
				out[i] = j
			}
		}
	}
	return out
}

// relErr returns |got−want| / max(|want|, tiny).
func relErr(got, want float64) float64 {
	return math.Abs(got-want) / math.Max(math.Abs(want), 1e-300)
}

// fixture is testdata/sklearn.json, written by bench/cluster/make_fixture.py.
type fixture struct {
	Sklearn   string      `json:"sklearn"`
	Blobs     blobFixture `json:"blobs"`
	BlobsAxis blobFixture `json:"blobs_axis"`
	Scores    []struct {
		Name         string      `json:"name"`
		Covariance   string      `json:"covariance"`
		Weights      []float64   `json:"weights"`
		Means        [][]float64 `json:"means"`
		Covariances  [][]float64 `json:"covariances"`
		ScoreSamples []float64   `json:"score_samples"`
		Score        float64     `json:"score"`
		BIC          float64     `json:"bic"`
		NParameters  int         `json:"n_parameters"`
	} `json:"scores"`
	MStep struct {
		Resp  [][]float64 `json:"resp"`
		Cases []struct {
			Covariance  string      `json:"covariance"`
			Weights     []float64   `json:"weights"`
			Means       [][]float64 `json:"means"`
			Covariances [][]float64 `json:"covariances"`
		} `json:"cases"`
	} `json:"mstep"`
	PCA struct {
		X                 [][]float64 `json:"x"`
		K                 int         `json:"k"`
		Projection        [][]float64 `json:"projection"`
		ExplainedVariance []float64   `json:"explained_variance"`
	} `json:"pca"`
}

// blobFixture is generated data with scikit-learn's model selection on it.
type blobFixture struct {
	X      [][]float64 `json:"x"`
	Labels []int       `json:"labels"`
	Select map[string]struct {
		BICs []float64 `json:"bics"`
		K    int       `json:"k"`
	} `json:"select"`
}

func loadFixture(t testing.TB) *fixture {
	t.Helper()
	b, err := os.ReadFile("testdata/sklearn.json")
	if err != nil {
		t.Fatal(err)
	}
	var f fixture
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	return &f
}
