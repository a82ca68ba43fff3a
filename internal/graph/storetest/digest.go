package storetest

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/stratarag/strata/internal/graph"
)

func digestTests() []test {
	return []test{
		{"CommunityDigests/Limits", testDigestLimits},
		{"CommunityDigests/Ring", testDigestRing},
		{"CommunityDigests/Errors", testDigestErrors},
	}
}

// digestWeights are the weights of digestBatch's relations, in turn: unequal, so that the
// total weight depends on the order it is summed in (the Q cluster's does), and repeated, so
// that the heaviest relations tie and fall back to key order.
var digestWeights = []float64{0.1, 0.7, 0.2, 1.3, 0.3, 0.7, 0.1, 2.9, 0.6, 0.3, 0.4, 1.1}

// digestBatch is clusterBatch with digestWeights: two clusters of five, P1 and Q1 (bridged)
// more connected than the other members, who tie on degree.
func digestBatch() graph.Batch {
	b := clusterBatch()
	for i := range b.Relations {
		b.Relations[i].Weight = digestWeights[i%len(digestWeights)]
		b.Relations[i].ChunkIDs = []string{"c" + itoa(i)}
	}
	return b
}

// digester returns s as a graph.CommunityDigester, with its communities computed over b
// (components first, for the degrees).
func digester(t *testing.T, s graph.Store, b graph.Batch) (graph.CommunityDigester, []graph.Community, graph.Batch) {
	t.Helper()
	d, ok := s.(graph.CommunityDigester)
	if !ok {
		t.Fatalf("%T does not implement graph.CommunityDigester", s)
	}
	apply(t, s, b)
	must[int](t, "ComputeComponents")(s.ComputeComponents(ctx(t)))
	return d, computeCommunities(t, s), b
}

// wantDigest is the digest of community id, derived from the batch it was computed over, its
// members (CommunityMembers) and their degrees (Entities) as graph.CommunityDigest documents
// it: the weight summed in key order, left to right.
func wantDigest(t *testing.T, s graph.Store, b graph.Batch, id string, top, maxRelations int) graph.CommunityDigest {
	t.Helper()
	m := must[graph.Members](t, "CommunityMembers")(s.CommunityMembers(ctx(t), id, 0))
	if len(m.Entities) == 0 {
		return graph.CommunityDigest{}
	}
	byID := map[string]graph.Entity{}
	for _, e := range m.Entities {
		byID[e.ID] = e
	}
	var rels []graph.Relation
	for _, r := range b.Relations {
		if _, ok := byID[r.Source]; ok {
			if _, ok := byID[r.Target]; ok {
				rels = append(rels, r)
			}
		}
	}
	sortRelations(rels)
	d := graph.CommunityDigest{EntityCount: len(m.Entities), RelationCount: len(rels)}
	for _, r := range rels {
		d.RelationWeight += r.Weight
	}
	slices.SortStableFunc(rels, func(a, b graph.Relation) int { return cmp.Compare(b.Weight, a.Weight) })
	d.Relations = rels[:min(maxRelations, len(rels))]
	entities := slices.Clone(m.Entities)
	slices.SortFunc(entities, func(a, b graph.Entity) int {
		return cmp.Or(cmp.Compare(b.Degree, a.Degree), cmp.Compare(a.ID, b.ID))
	})
	d.Entities = entities[:min(top, len(entities))]
	var ends []string
	for _, r := range d.Relations {
		for _, e := range []string{r.Source, r.Target} {
			if !slices.ContainsFunc(d.Entities, func(x graph.Entity) bool { return x.ID == e }) && !slices.Contains(ends, e) {
				ends = append(ends, e)
			}
		}
	}
	slices.Sort(ends)
	for _, e := range ends {
		d.Entities = append(d.Entities, byID[e])
	}
	return d
}

// digests calls CommunityDigests and checks that fn sees every id once, in order.
func digests(t *testing.T, d graph.CommunityDigester, ids []string, top, maxRelations int) []graph.CommunityDigest {
	t.Helper()
	var out []graph.CommunityDigest
	err := d.CommunityDigests(ctx(t), ids, top, maxRelations, func(i int, dg graph.CommunityDigest) error {
		if i != len(out) {
			t.Fatalf("CommunityDigests called fn with %d after %d digests", i, len(out))
		}
		out = append(out, dg)
		return nil
	})
	if err != nil {
		t.Fatalf("CommunityDigests(%d, %d): %v", top, maxRelations, err)
	}
	if len(out) != len(ids) {
		t.Fatalf("CommunityDigests gave %d digests for %d ids", len(out), len(ids))
	}
	return out
}

// testDigestLimits: each community's digest names its most connected members and heaviest
// relations in the documented order, with counts and a total weight equal to the key-order sum
// bit for bit, for several limits; unknown and repeated ids, in lists longer than a store's
// page, change nothing.
func testDigestLimits(t *testing.T, s graph.Store) {
	d, comms, b := digester(t, s, digestBatch())
	ids := []string{"no-such-community"}
	for range 700 / len(comms) { // several pages of repeated ids
		for _, c := range comms {
			ids = append(ids, c.ID)
		}
	}
	ids = append(ids, "0-999")
	for _, lim := range [][2]int{{4, 5}, {0, 0}, {2, 1}, {100, 100}} {
		got := digests(t, d, ids, lim[0], lim[1])
		want := map[string]graph.CommunityDigest{}
		for i, id := range ids {
			w, ok := want[id]
			if !ok {
				w = wantDigest(t, s, b, id, lim[0], lim[1])
				want[id] = w
			}
			what := fmt.Sprintf("digest of %s (%d of %d ids) with %d entities and %d relations", id, i, len(ids), lim[0], lim[1])
			if got[i].RelationWeight != w.RelationWeight {
				t.Errorf("%s: RelationWeight %v (%b), want the key-order sum %v (%b)", what, got[i].RelationWeight, got[i].RelationWeight, w.RelationWeight, w.RelationWeight)
			}
			check(t, what, got[i], w)
			if t.Failed() {
				return
			}
		}
	}
}

// testDigestRing: over a ring of cliques with unequal weights (several levels, communities of
// many sizes), every community's digest is the one its members and relations give.
func testDigestRing(t *testing.T, s graph.Store) {
	b := RingOfCliques(12, 5)
	for i := range b.Relations {
		b.Relations[i].Weight = digestWeights[(i*7)%len(digestWeights)] * float64(1+i%3)
		b.Relations[i].Description = b.Relations[i].Source + " and " + b.Relations[i].Target
	}
	d, comms, b := digester(t, s, b)
	got := digests(t, d, ids(comms), 4, 5)
	for i, c := range comms {
		w := wantDigest(t, s, b, c.ID, 4, 5)
		if got[i].RelationWeight != w.RelationWeight {
			t.Errorf("digest of %s: RelationWeight %v, want the key-order sum %v", c.ID, got[i].RelationWeight, w.RelationWeight)
		}
		check(t, "digest of "+c.ID, got[i], w)
	}
}

// testDigestErrors: negative limits fail, an empty list calls nothing, and fn's error stops
// the pass and is returned.
func testDigestErrors(t *testing.T, s graph.Store) {
	d, comms, _ := digester(t, s, digestBatch())
	never := func(int, graph.CommunityDigest) error {
		t.Error("fn called")
		return nil
	}
	for _, lim := range [][2]int{{-1, 5}, {4, -1}} {
		if err := d.CommunityDigests(ctx(t), []string{comms[0].ID}, lim[0], lim[1], never); err == nil {
			t.Errorf("CommunityDigests with limits %v succeeded", lim)
		}
	}
	if err := d.CommunityDigests(ctx(t), nil, 4, 5, never); err != nil {
		t.Errorf("CommunityDigests of no ids: %v", err)
	}
	stop := errors.New("stop")
	calls := 0
	err := d.CommunityDigests(ctx(t), ids(comms), 4, 5, func(int, graph.CommunityDigest) error {
		calls++
		return stop
	})
	if !errors.Is(err, stop) || calls != 1 {
		t.Errorf("CommunityDigests with a failing fn: %v after %d calls, want %v after 1", err, calls, stop)
	}
}
