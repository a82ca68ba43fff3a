package cypher

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/stratarag/strata/internal/graph"
)

// tiedGraph is a random entity graph with many shortest paths of equal length between the same
// ends: 300 entities of 3 random relations each, plus 8 summaries over 25 members each. Ids are
// not in creation order, so that the projection's numbering (by id) differs from the store's.
func tiedGraph() (graph.Batch, []string) {
	rng := rand.New(rand.NewPCG(7, 7))
	var b graph.Batch
	var ids []string
	for i := range 300 {
		id := fmt.Sprintf("E%03d", (i*113)%300)
		ids = append(ids, id)
		b.Entities = append(b.Entities, graph.Entity{ID: id, Name: id, Type: "thing"})
	}
	seen := map[graph.RelationKey]bool{}
	for _, s := range ids {
		for range 3 {
			t := ids[rng.IntN(len(ids))]
			k := graph.NewRelationKey(s, t)
			if s == t || seen[k] {
				continue
			}
			seen[k] = true
			b.Relations = append(b.Relations, graph.Relation{Source: s, Target: t, Description: s + "-" + t, Weight: float64(1 + rng.IntN(2))})
		}
	}
	for i := range 8 {
		sum := fmt.Sprintf("S%d", i)
		b.Entities = append(b.Entities, graph.Entity{ID: sum, Name: sum, Type: "summary", Layer: 1})
		for range 25 {
			b.SummaryLinks = append(b.SummaryLinks, graph.SummaryLink{Member: ids[rng.IntN(len(ids))], Summary: sum, Weight: 1})
		}
	}
	return b, ids
}

// TestResidentPaths: a resident store finds, in its copy of the GDS projection, the very paths
// GDS finds, among many equally short ones (plain Cypher picks others for some of the same
// requests, so the test tells tie rules apart); it loads the copy once per generation, and
// after a write, until a projection of the new graph exists, it leaves the answer to the
// statements, as a fresh process does.
func TestResidentPaths(t *testing.T) {
	plain, resident := residentPair(t)
	ctx := t.Context()
	b, ids := tiedGraph()
	mustApply(t, plain, b)
	if _, err := plain.ComputeCommunities(ctx, graph.DefaultLeidenParams()); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 3))
	var reqs []graph.PathRequest
	for range 60 {
		src := ids[rng.IntN(len(ids))]
		for range 5 {
			reqs = append(reqs, graph.PathRequest{Source: src, Target: ids[rng.IntN(len(ids))]})
		}
	}
	same := func(when string, maxHops int) []graph.Path {
		t.Helper()
		want, err := plain.ShortestPaths(ctx, reqs, maxHops)
		if err != nil {
			t.Fatal(err)
		}
		got, err := resident.ShortestPaths(graph.WithReadScope(ctx), reqs, maxHops)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			for i := range min(len(got), len(want)) {
				if !reflect.DeepEqual(got[i], want[i]) {
					t.Fatalf("%s, max hops %d: resident path %+v, GDS %+v", when, maxHops, got[i], want[i])
				}
			}
			t.Fatalf("%s, max hops %d: resident found %d paths, GDS %d", when, maxHops, len(got), len(want))
		}
		return want
	}
	gdsCalls := statementCalls(resident, qPathsGDSNear) + statementCalls(resident, qPathsGDS)
	for _, maxHops := range []int{2, 4, 6} {
		paths := same("projection current", maxHops)
		if maxHops == 4 {
			if len(paths) < 150 {
				t.Fatalf("%d paths of at most 4 hops for %d requests; the graph is too sparse to test ties", len(paths), len(reqs))
			}
			cypherPaths, err := plain.pathRows(ctx, qPathsCypher, pairs(reqs), nil)
			if err != nil {
				t.Fatal(err)
			}
			byPair := map[graph.PathRequest][]string{}
			for _, p := range cypherPaths {
				byPair[graph.PathRequest{Source: p.Source, Target: p.Target}] = p.Nodes
			}
			other := 0
			for _, p := range paths {
				if n := byPair[graph.PathRequest{Source: p.Source, Target: p.Target}]; n != nil && !reflect.DeepEqual(n, p.Nodes) {
					other++
				}
			}
			if other == 0 {
				t.Error("plain Cypher picked the same path as GDS for every request: no ties tested")
			}
		}
	}
	if n := statementCalls(resident, qPathsGDSNear) + statementCalls(resident, qPathsGDS) - gdsCalls; n != 0 {
		t.Errorf("the resident store sent %d GDS path statements with the projection current, want 0", n)
	}
	if n := statementCalls(resident, qReadEntityGraph); n != 1 {
		t.Errorf("the copy was loaded %d times for one generation, want 1", n)
	}

	// A new relation: no projection of the new graph yet, so both answer with plain Cypher.
	mustApply(t, plain, graph.Batch{Relations: []graph.Relation{{Source: ids[0], Target: ids[1], Description: "new", Weight: 1}}})
	same("projection stale", 4)
	if _, err := plain.ComputeCommunities(ctx, graph.DefaultLeidenParams()); err != nil {
		t.Fatal(err)
	}
	same("projection of the new graph", 4)
	if n := statementCalls(resident, qReadEntityGraph); n != 2 {
		t.Errorf("the copy was loaded %d times for two generations, want 2", n)
	}
}
