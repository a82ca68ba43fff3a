package cypher

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/stratarag/strata/internal/graph"
)

// pathRecord is a row of the paths_*.cypher statements.
func pathRecord(nodes []string, steps ...map[string]any) map[string]any {
	ns := make([]any, len(nodes))
	for i, n := range nodes {
		ns[i] = n
	}
	ss := make([]any, len(steps))
	for i, s := range steps {
		ss[i] = s
	}
	return map[string]any{"source": nodes[0], "target": nodes[len(nodes)-1], "nodes": ns, "steps": ss}
}

// TestShortestPathsGDS: with GDS the paths come from paths_gds_near in one call per source,
// from the ends orient picks for the whole set, and are walked in the direction they were
// asked; a request without a row has no path.
func TestShortestPathsGDS(t *testing.T) {
	s, f := newFakeStore(t, Config{}, "2.13.0")
	f.answer = func(name string, params map[string]any) ([]map[string]any, error) {
		if name == qPathsGDSNear {
			// D has no path of at most maxHops hops.
			return []map[string]any{
				pathRecord([]string{"A", "B"}, step("RELATED", "ab", 2)),
				pathRecord([]string{"A", "X", "Y", "C"}, step("RELATED", "ax", 1), step("RELATED", "xy", 1), step("RELATED", "yc", 1)),
			}, nil
		}
		return nil, nil
	}
	reqs := []graph.PathRequest{{Source: "A", Target: "B"}, {Source: "C", Target: "A"}, {Source: "A", Target: "D"}, {Source: "B", Target: "A"}}
	got, err := s.ShortestPaths(t.Context(), reqs, 3)
	if err != nil {
		t.Fatal(err)
	}
	var ends []string
	for _, p := range got {
		ends = append(ends, fmt.Sprintf("%s-%s:%d", p.Source, p.Target, len(p.Steps)))
	}
	if want := []string{"A-B:1", "C-A:3", "B-A:1"}; !slices.Equal(ends, want) {
		t.Errorf("paths %v, want %v", ends, want)
	}
	if got[2].Steps[0].From != "B" || got[2].Steps[0].Description != "ab" {
		t.Errorf("B to A = %+v, want the A-B step walked from B", got[2])
	}
	if names := f.names(); !slices.Equal(names, []string{qPathsGDSNear}) {
		t.Errorf("statements %v, want one paths_gds_near", names)
	}
	// A is in most requests, so orient makes it the source of C-A as well.
	c := f.only(qPathsGDSNear)[0]
	want := map[string]any{
		"requests": []map[string]any{{"source": "A", "targets": []string{"B", "C", "D"}}},
		"maxHops":  int64(3), "prefix": s.projectionPrefix, "key": metaEntityGraphGeneration,
	}
	if !reflect.DeepEqual(c.params, want) || !c.write {
		t.Errorf("paths_gds_near params %v (write %v), want %v in a write transaction", c.params, c.write, want)
	}
}

func step(typ, desc string, w float64) map[string]any {
	return map[string]any{"type": typ, "description": desc, "weight": w}
}

func TestShortestPaths(t *testing.T) {
	aToC := pathRecord([]string{"A", "B", "C"}, step("RELATED", "ab", 1), step("SUMMARIZED_BY", "cb", 0.5))
	aToCPath := graph.Path{Source: "A", Target: "C", Nodes: []string{"A", "B", "C"}, Steps: []graph.PathStep{
		{From: "A", To: "B", Type: "RELATED", Description: "ab", Weight: 1},
		{From: "B", To: "C", Type: "SUMMARIZED_BY", Description: "cb", Weight: 0.5},
	}}
	reqs := []graph.PathRequest{{Source: "A", Target: "C"}, {Source: "A", Target: "Z"}, {Source: "A", Target: "A"}}
	sameA := graph.Path{Source: "A", Target: "A", Nodes: []string{"A"}}
	entities := []map[string]any{{"entity": entityRecord("A", 0)}}

	for _, tc := range []struct {
		name    string
		gds     string
		gdsErr  error
		gdsRows []map[string]any
		cypher  []map[string]any
		maxHops int
		want    []graph.Path
		ran     []string // path statements expected to run
		retry   bool     // Cypher re-asks only what GDS answered wrongly
	}{
		{
			name: "no GDS: plain Cypher", cypher: []map[string]any{aToC}, maxHops: 3,
			want: []graph.Path{aToCPath, sameA}, ran: []string{qPathsCypher},
		},
		{
			name: "GDS only", gds: "2.13.0", gdsRows: []map[string]any{aToC}, maxHops: 3,
			want: []graph.Path{aToCPath, sameA}, ran: []string{qPathsGDSNear},
		},
		{
			name: "GDS fails (no current projection): Cypher answers", gds: "2.13.0", gdsErr: errors.New("graph does not exist"),
			cypher: []map[string]any{aToC}, maxHops: 3,
			want: []graph.Path{aToCPath, sameA}, ran: []string{qPathsGDSNear, qPathsCypher},
		},
		{
			name: "GDS path with a hop the database lost: Cypher answers", gds: "2.13.0",
			gdsRows: []map[string]any{pathRecord([]string{"A", "B", "C"}, step("RELATED", "ab", 1))},
			cypher:  []map[string]any{aToC}, maxHops: 3, retry: true,
			want: []graph.Path{aToCPath, sameA}, ran: []string{qPathsGDSNear, qPathsCypher},
		},
		{
			name: "longer than maxHops", cypher: []map[string]any{aToC}, maxHops: 1,
			want: []graph.Path{sameA}, ran: []string{qPathsCypher},
		},
		{
			name: "more than 4 hops: the 32-hop search", cypher: []map[string]any{aToC}, maxHops: 5,
			want: []graph.Path{aToCPath, sameA}, ran: []string{qPathsCypherLong},
		},
		{
			name: "more than 4 hops with GDS: Dijkstra without a bound", gds: "2.13.0", gdsRows: []map[string]any{aToC}, maxHops: 5,
			want: []graph.Path{aToCPath, sameA}, ran: []string{qPathsGDS},
		},
		{
			name: "maxHops 0: only the zero-step path", maxHops: 0,
			want: []graph.Path{sameA}, ran: nil,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, f := newFakeStore(t, Config{}, tc.gds)
			f.answer = func(name string, params map[string]any) ([]map[string]any, error) {
				switch name {
				case qPathsGDS, qPathsGDSNear:
					return tc.gdsRows, tc.gdsErr
				case qPathsCypher, qPathsCypherLong:
					return tc.cypher, nil
				case qReadEntities:
					return entities, nil
				}
				return nil, nil
			}
			got, err := s.ShortestPaths(t.Context(), reqs, tc.maxHops)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("paths\n got  %+v\n want %+v", got, tc.want)
			}
			var ran []string
			for _, n := range f.names() {
				if strings.HasPrefix(n, "paths_") {
					ran = append(ran, n)
				}
			}
			if !reflect.DeepEqual(ran, tc.ran) {
				t.Errorf("ran %v, want %v", ran, tc.ran)
			}
			for _, c := range f.only(qPathsCypher) {
				want := []map[string]any{{"source": "A", "target": "C"}, {"source": "A", "target": "Z"}}
				if tc.retry {
					want = want[:1]
				}
				if !reflect.DeepEqual(c.params["requests"], want) {
					t.Errorf("paths_cypher requests = %v, want %v", c.params["requests"], want)
				}
			}
			for _, c := range slices.Concat(f.only(qPathsGDS), f.only(qPathsGDSNear)) {
				// One request per source with its targets, in a write transaction (where the
				// catalog lives on a cluster).
				want := []map[string]any{{"source": "A", "targets": []string{"C", "Z"}}}
				if !reflect.DeepEqual(c.params["requests"], want) || !c.write {
					t.Errorf("%s requests = %v (write %v), want %v in a write transaction", c.name, c.params["requests"], c.write, want)
				}
			}
		})
	}
}

// TestShortPathHopsMatchesStatement: the Go side picks paths_cypher and paths_gds_near for
// limits up to shortPathHops, so the statements must search exactly that far.
func TestShortPathHopsMatchesStatement(t *testing.T) {
	qs, err := loadQueries()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{qPathsCypher, qPathsGDSNear} {
		if want := fmt.Sprintf("*..%d]", shortPathHops); !strings.Contains(qs.get(name).text, want) {
			t.Errorf("%s does not search %s hops (want %q)", name, want, want)
		}
	}
}

// TestShortestPathsOrient: requests are turned around so that few entities are Dijkstra
// sources, and every answer comes back in the direction it was asked.
func TestShortestPathsOrient(t *testing.T) {
	s, f := newFakeStore(t, Config{}, "2.13.0")
	f.answer = func(name string, params map[string]any) ([]map[string]any, error) {
		if name != qPathsGDSNear {
			return nil, nil
		}
		// Every pair is one hop apart, described by its ends in walking order.
		var rows []map[string]any
		for _, r := range params["requests"].([]map[string]any) {
			src := r["source"].(string)
			for _, dst := range r["targets"].([]string) {
				rows = append(rows, pathRecord([]string{src, dst}, step("RELATED", src+dst, 1)))
			}
		}
		return rows, nil
	}
	// A chain, with one pair asked both ways.
	reqs := []graph.PathRequest{{Source: "A", Target: "B"}, {Source: "B", Target: "C"}, {Source: "C", Target: "D"},
		{Source: "D", Target: "E"}, {Source: "C", Target: "B"}}
	got, err := s.ShortestPaths(t.Context(), reqs, 4)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(reqs) {
		t.Fatalf("%d paths for %d requests: %+v", len(got), len(reqs), got)
	}
	for i, p := range got {
		r := reqs[i]
		if p.Source != r.Source || p.Target != r.Target || !reflect.DeepEqual(p.Nodes, []string{r.Source, r.Target}) ||
			len(p.Steps) != 1 || p.Steps[0].From != r.Source || p.Steps[0].To != r.Target {
			t.Errorf("path for %v = %+v, want one step from %s to %s", r, p, r.Source, r.Target)
		}
	}
	var sources []string
	for _, c := range f.only(qPathsGDSNear) {
		for _, r := range c.params["requests"].([]map[string]any) {
			sources = append(sources, r["source"].(string))
		}
	}
	slices.Sort(sources) // the sources' transactions run concurrently
	if want := []string{"B", "D"}; !reflect.DeepEqual(sources, want) {
		t.Errorf("Dijkstra sources %v, want %v (the chain's every other entity)", sources, want)
	}
}
