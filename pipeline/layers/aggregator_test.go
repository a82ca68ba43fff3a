package layers

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/stratarag/strata/internal/testctx"
)

// TestAggregatorChunks: counting the pairs a range of pairs at a time, in chunks of a few
// occurrences, gives the histogram and the kept pairs that one chunk of all of them gives.
func TestAggregatorChunks(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	base := make([]string, 400)
	for i := range base {
		base[i] = fmt.Sprintf("e%04d", i)
	}
	var edges []baseEdge
	for range 3000 {
		s, u := rng.IntN(len(base)), rng.IntN(len(base))
		if s != u {
			edges = append(edges, baseEdge{s: int32(min(s, u)), t: int32(max(s, u)), weight: float64(rng.IntN(5) + 1)})
		}
	}
	build := func(chunk int) (map[int]int, []keptPair) {
		rng := rand.New(rand.NewPCG(5, 6))
		a := newAggregator(base, edges)
		a.chunk = chunk
		// Two layers of 40 and 6 summaries, members linked to one or two of them.
		for _, n := range []int{40, 6} {
			var links []link
			for m := range a.current {
				links = append(links, link{member: int32(m), summary: int32(rng.IntN(n)), weight: 1})
				if rng.IntN(3) == 0 {
					links = append(links, link{member: int32(m), summary: int32(rng.IntN(n)), weight: 0.5})
				}
			}
			slices.SortFunc(links, func(a, b link) int {
				return cmp.Or(cmp.Compare(a.member, b.member), cmp.Compare(a.summary, b.summary))
			})
			links = slices.CompactFunc(links, func(a, b link) bool { return a.member == b.member && a.summary == b.summary })
			ids := make([]string, n)
			for i := range ids {
				ids[i] = fmt.Sprintf("s%d-%02d", n, i)
			}
			a.climb(links, ids)
		}
		hist, err := a.histogram(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		kept, err := a.kept(t.Context(), threshold(hist, 1))
		if err != nil {
			t.Fatal(err)
		}
		// Cancelled at its second chunk, the count stops with the context's error.
		a.chunk = 7
		if _, err := a.histogram(testctx.Countdown(t.Context(), 2)); !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled at the second chunk: error %v, want context.Canceled", err)
		}
		return hist, kept
	}
	wantHist, wantKept := build(chunkOccurrences)
	gotHist, gotKept := build(7)
	if len(wantKept) == 0 || !reflect.DeepEqual(gotHist, wantHist) || !reflect.DeepEqual(gotKept, wantKept) {
		t.Errorf("in chunks of 7: %d kept pairs and histogram %v; in one chunk: %d and %v", len(gotKept), gotHist, len(wantKept), wantHist)
	}
}
