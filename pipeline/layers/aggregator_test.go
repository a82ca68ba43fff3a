package layers

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"testing"

	"github.com/stratarag/strata/internal/idlist"
	"github.com/stratarag/strata/internal/testctx"
)

// TestAggregatorChunks: counting the pairs a range of pairs at a time, in chunks of a few
// occurrences, gives the histogram and the kept pairs that one chunk of all of them gives, with
// the relations in memory or in a temporary file.
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
	build := func(chunk int, spill bool) (map[int]int, []keptPair) {
		rng := rand.New(rand.NewPCG(5, 6))
		var list edgeList = memEdges(edges)
		if spill {
			list = spilled(t, edges)
		}
		a := newAggregator(mustList(t, base), list)
		a.chunk = chunk
		// Two layers of 40 and 6 summaries, members linked to one or two of them.
		for _, n := range []int{40, 6} {
			var links []link
			for m := range a.current.Len() {
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
			a.climb(links, mustList(t, ids))
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
	wantHist, wantKept := build(chunkOccurrences, false)
	for _, tt := range []struct {
		chunk int
		spill bool
	}{{7, false}, {chunkOccurrences, true}, {7, true}} {
		gotHist, gotKept := build(tt.chunk, tt.spill)
		if len(wantKept) == 0 || !reflect.DeepEqual(gotHist, wantHist) || !reflect.DeepEqual(gotKept, wantKept) {
			t.Errorf("in chunks of %d, in a file %v: %d kept pairs and histogram %v; in one chunk in memory: %d and %v",
				tt.chunk, tt.spill, len(gotKept), gotHist, len(wantKept), wantHist)
		}
	}
}

func mustList(t *testing.T, ids []string) idlist.List {
	l, err := idlist.New(ids)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// spilled writes edges to a fileEdges in a test directory, which it checks is empty: the file is
// removed as soon as it is created.
func spilled(t *testing.T, edges []baseEdge) *fileEdges {
	dir := t.TempDir()
	w, err := newEdgeFile(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range edges {
		if err := w.add(e); err != nil {
			t.Fatal(err)
		}
	}
	fe, err := w.done()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := fe.close(); err != nil {
			t.Error(err)
		}
	})
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("%d files left in the temporary directory while the edges are open", len(left))
	}
	return fe
}

// TestFileEdges: edges written to a file are read back in order and one by one as written, and
// a number out of range is an error.
func TestFileEdges(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	edges := make([]baseEdge, 10000) // more than one read buffer
	for i := range edges {
		edges[i] = baseEdge{s: rng.Int32(), t: rng.Int32(), weight: rng.Float64() * 100}
	}
	fe := spilled(t, edges)
	var got []baseEdge
	if err := fe.each(func(i int32, e baseEdge) {
		if int(i) != len(got) {
			t.Fatalf("edge %d numbered %d", len(got), i)
		}
		got = append(got, e)
	}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, edges) {
		t.Error("the edges read back in order differ from those written")
	}
	for _, i := range []int32{0, 4095, 4096, 9999} {
		if e, err := fe.at(i); err != nil || e != edges[i] {
			t.Errorf("edge %d: %v, %v; want %v", i, e, err, edges[i])
		}
	}
	for _, i := range []int32{-1, 10000} {
		if _, err := fe.at(i); err == nil {
			t.Errorf("edge %d of %d: no error", i, len(edges))
		}
	}
}
