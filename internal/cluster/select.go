package cluster

import (
	"context"
	"fmt"
	"math"
)

// SelectOptions configures Select. The zero value gives HiRAG's settings.
type SelectOptions struct {
	// MaxComponents is the largest number of components tried (DefaultMaxComponents when <= 0).
	MaxComponents int
	// RelTol stops the search once |BIC(k) − BIC(k−1)| / |BIC(k−1)| < RelTol: more components
	// no longer change the fit in a way that matters (DefaultRelTol when 0; a negative RelTol
	// tries every k up to MaxComponents).
	RelTol float64
	// GMM configures every fit; each k is fitted with the same seed.
	GMM GMMOptions
}

// Select fits mixtures of k = 1, 2, … components to the rows of x and returns the one with the
// lowest BIC, together with the BIC of every k tried (bics[i] is for k = i+1). The search stops
// after MaxComponents, after as many components as rows, or as soon as the relative change of
// the BIC between consecutive k falls below RelTol, as HiRAG does; the model returned is the best
// of those tried, not necessarily the last. A fit that dropped empty components is kept under the
// k it was asked for.
func Select(x [][]float64, opt SelectOptions) (*GMM, []float64, error) {
	flat, n, d, err := flatten(x)
	if err != nil {
		return nil, nil, fmt.Errorf("cluster: Select: %w", err)
	}
	maxK := opt.MaxComponents
	if maxK <= 0 {
		maxK = DefaultMaxComponents
	}
	maxK = min(maxK, n)
	relTol := opt.RelTol
	if relTol == 0 {
		relTol = DefaultRelTol
	}
	gopt, err := opt.GMM.withDefaults()
	if err != nil {
		return nil, nil, fmt.Errorf("cluster: Select: %w", err)
	}
	s := newScratch(n, d, maxK)
	var (
		best    *GMM
		bestBIC float64
		bics    []float64
	)
	for k := 1; k <= maxK; k++ {
		g, err := fit(context.Background(), flat, n, d, k, gopt)
		if err != nil {
			return nil, nil, fmt.Errorf("cluster: Select: %d components: %w", k, err)
		}
		bic := g.bic(flat, n, s, gopt.Workers)
		bics = append(bics, bic)
		if best == nil || bic < bestBIC {
			best, bestBIC = g, bic
		}
		if k > 1 && relTol > 0 {
			prev := bics[k-2]
			if math.Abs(bic-prev) < relTol*math.Abs(prev) {
				break
			}
		}
	}
	return best, bics, nil
}

// Sparsity returns HiRAG's cluster sparsity of a layer of n items,
// CS = 1 − Σ_S |S|(|S|−1) / (n(n−1)), over clusters S given as lists of item indexes: the
// fraction of ordered pairs of items that share no cluster when clusters are disjoint. It is 1
// when every item is alone and 0 when all share one cluster; with overlapping clusters a pair
// is counted once per cluster it shares, so the value can fall below 0. It returns 1 when n < 2,
// where there are no pairs.
func Sparsity(clusters [][]int, n int) float64 {
	if n < 2 {
		return 1
	}
	pairs := 0.0
	for _, c := range clusters {
		s := float64(len(c))
		pairs += s * (s - 1)
	}
	return 1 - pairs/(float64(n)*float64(n-1))
}
