package cluster

import (
	"math"
	"math/rand/v2"
)

// kmeansMaxIter bounds the Lloyd iterations of the initialisation (scikit-learn's KMeans
// default). The EM that follows corrects whatever k-means leaves unfinished.
const kmeansMaxIter = 300

// kmeans clusters the n rows of x (row-major, d columns) into k groups and returns the group of
// every row. The mixture starts from these groups, as scikit-learn's GaussianMixture does by
// default: EM started from hard k-means clusters converges faster and to better optima than EM
// started from random responsibilities.
//
// Seeding is greedy k-means++: each new centre is the best, by resulting potential, of
// 2+⌊ln k⌋ rows drawn with probability proportional to their squared distance to the nearest
// centre so far. Lloyd iterations then run until no row changes group, the centres move by less
// than 1e-4 of the mean per-dimension variance (scikit-learn's tolerance), or kmeansMaxIter.
func kmeans(x []float64, n, d, k int, rng *rand.Rand, workers int) []int {
	centers := make([]float64, k*d)
	seedCenters(x, n, d, k, centers, rng)
	labels := make([]int, n)
	if k == 1 {
		return labels
	}
	for i := range labels {
		labels[i] = -1
	}

	// Tolerance on the total squared movement of the centres.
	tol := 0.0
	for a := 0; a < d; a++ {
		mean, sq := 0.0, 0.0
		for i := 0; i < n; i++ {
			mean += x[i*d+a]
		}
		mean /= float64(n)
		for i := 0; i < n; i++ {
			v := x[i*d+a] - mean
			sq += v * v
		}
		tol += sq / float64(n)
	}
	tol = 1e-4 * tol / float64(d)

	blocks := numBlocks(n)
	changed := make([]int, blocks)
	assign := func() int {
		parallel(blocks, workers, func(b int) {
			c := 0
			for i := b * blockRows; i < min(n, (b+1)*blockRows); i++ {
				j, _ := nearest(x[i*d:(i+1)*d], centers, k)
				if j != labels[i] {
					labels[i] = j
					c++
				}
			}
			changed[b] = c
		})
		total := 0
		for _, c := range changed {
			total += c
		}
		return total
	}
	sums := make([]float64, k*d)
	counts := make([]int, k)
	for it := 0; it < kmeansMaxIter; it++ {
		if assign() == 0 {
			break
		}
		clear(sums)
		clear(counts)
		for i, j := range labels {
			counts[j]++
			s := sums[j*d : (j+1)*d]
			for a, v := range x[i*d : (i+1)*d] {
				s[a] += v
			}
		}
		relocateEmpty(x, n, d, k, labels, counts, sums, centers)
		shift := 0.0
		for j := 0; j < k; j++ {
			inv := 1 / float64(counts[j])
			c := centers[j*d : (j+1)*d]
			for a, s := range sums[j*d : (j+1)*d] {
				v := s * inv
				shift += (v - c[a]) * (v - c[a])
				c[a] = v
			}
		}
		if shift <= tol {
			assign()
			break
		}
	}
	return labels
}

// nearest returns the index of the centre closest to row (the first on ties) and the squared
// distance to it. Four centres are measured at a time so that their sums are independent chains
// the processor can overlap.
func nearest(row, centers []float64, k int) (int, float64) {
	d := len(row)
	best, bestDist := 0, math.Inf(1)
	j := 0
	for ; j+4 <= k; j += 4 {
		c0 := centers[j*d : (j+1)*d]
		c1 := centers[(j+1)*d : (j+2)*d]
		c2 := centers[(j+2)*d : (j+3)*d]
		c3 := centers[(j+3)*d : (j+4)*d]
		var s0, s1, s2, s3 float64
		for a, v := range row {
			t0, t1, t2, t3 := v-c0[a], v-c1[a], v-c2[a], v-c3[a]
			s0 += t0 * t0
			s1 += t1 * t1
			s2 += t2 * t2
			s3 += t3 * t3
		}
		for o, s := range [4]float64{s0, s1, s2, s3} {
			if s < bestDist {
				best, bestDist = j+o, s
			}
		}
	}
	for ; j < k; j++ {
		if s := dist2(row, centers[j*d:(j+1)*d]); s < bestDist {
			best, bestDist = j, s
		}
	}
	return best, bestDist
}

// dist2 returns the squared Euclidean distance between a and b.
func dist2(a, b []float64) float64 {
	b = b[:len(a)]
	s := 0.0
	for i, v := range a {
		t := v - b[i]
		s += t * t
	}
	return s
}

// seedCenters fills centers (k×d) by greedy k-means++.
func seedCenters(x []float64, n, d, k int, centers []float64, rng *rand.Rand) {
	first := rng.IntN(n)
	copy(centers, x[first*d:(first+1)*d])
	closest := make([]float64, n)
	pot := 0.0
	for i := range closest {
		closest[i] = dist2(x[i*d:(i+1)*d], centers[:d])
		pot += closest[i]
	}
	trials := 2 + int(math.Log(float64(k)))
	cand := make([]float64, n)
	best := make([]float64, n)
	for c := 1; c < k; c++ {
		if !(pot > 0) {
			// Every row coincides with a centre: there is nothing left to spread over.
			i := rng.IntN(n)
			copy(centers[c*d:(c+1)*d], x[i*d:(i+1)*d])
			continue
		}
		bestIdx, bestPot := -1, math.Inf(1)
		for t := 0; t < trials; t++ {
			i := sampleIndex(closest, pot, rng.Float64())
			row := x[i*d : (i+1)*d]
			p := 0.0
			for r := range cand {
				cand[r] = min(closest[r], dist2(x[r*d:(r+1)*d], row))
				p += cand[r]
			}
			if p < bestPot {
				bestIdx, bestPot = i, p
				cand, best = best, cand
			}
		}
		copy(centers[c*d:(c+1)*d], x[bestIdx*d:(bestIdx+1)*d])
		closest, best = best, closest
		pot = bestPot
	}
}

// sampleIndex returns the index i drawn with probability weights[i]/total, given u uniform in
// [0, 1). Rows of weight zero are never returned, even when rounding makes the running sum
// fall short of total.
func sampleIndex(weights []float64, total, u float64) int {
	target := u * total
	acc := 0.0
	last := -1
	for i, w := range weights {
		if w <= 0 {
			continue
		}
		acc += w
		last = i
		if acc > target {
			return i
		}
	}
	return last
}

// relocateEmpty gives every empty cluster the row farthest from its own centre, taken from a
// cluster that keeps at least one row, so that k-means always hands k non-empty groups to EM
// (an empty group would start a component with no data). sums and counts are updated to match.
func relocateEmpty(x []float64, n, d, k int, labels, counts []int, sums, centers []float64) {
	empty := 0
	for _, c := range counts {
		if c == 0 {
			empty++
		}
	}
	if empty == 0 {
		return
	}
	far := make([]float64, n)
	for i, j := range labels {
		far[i] = dist2(x[i*d:(i+1)*d], centers[j*d:(j+1)*d])
	}
	for j := 0; j < k; j++ {
		if counts[j] != 0 {
			continue
		}
		pick := -1
		for i, v := range far {
			if counts[labels[i]] > 1 && (pick < 0 || v > far[pick]) {
				pick = i
			}
		}
		if pick < 0 {
			return // fewer rows than clusters; cannot happen as fit requires k <= n
		}
		old := labels[pick]
		row := x[pick*d : (pick+1)*d]
		for a, v := range row {
			sums[old*d+a] -= v
			sums[j*d+a] = v
		}
		counts[old]--
		counts[j] = 1
		labels[pick] = j
		far[pick] = -1
	}
}
