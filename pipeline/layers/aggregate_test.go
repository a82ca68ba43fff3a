package layers_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/pipeline/layers"
)

func TestThreshold(t *testing.T) {
	tests := []struct {
		name   string
		counts []int
		k      float64
		want   float64
	}{
		{"no pairs", nil, 1, 2},
		{"uniform counts: the mean, at least 2", []int{1, 1, 1}, 1, 2},
		{"mean plus one sd", []int{1, 1, 1, 1, 6}, 1, 2 + 2},
		{"mean plus two sd", []int{1, 1, 1, 1, 6}, 2, 2 + 4},
		{"the order of counts does not matter", []int{6, 1, 1, 1, 1}, 1, 4},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := layers.Threshold(tc.counts, tc.k); math.Abs(got-tc.want) > 1e-9 {
				t.Errorf("Threshold(%v, %g) = %g, want %g", tc.counts, tc.k, got, tc.want)
			}
		})
	}
}

// summaryRelations reads the RELATED relationships between two summaries of each layer.
func summaryRelations(t *testing.T, s graph.Reader, built []layers.Layer) map[int][]graph.Relation {
	t.Helper()
	out := map[int][]graph.Relation{}
	for _, l := range built {
		edges, err := graph.LayerEdges(context.Background(), s, l.Layer)
		if err != nil {
			t.Fatal(err)
		}
		keys := make([]graph.RelationKey, len(edges))
		for i, e := range edges {
			keys[i] = graph.RelationKey{Source: e.Source, Target: e.Target}
		}
		if len(keys) > 0 {
			if out[l.Layer], err = s.Relations(context.Background(), keys); err != nil {
				t.Fatal(err)
			}
		}
	}
	return out
}

// TestAggregation: with a describer, every layer gets the relations its Aggregate stats count,
// between two summaries of the layer, each standing for at least τ base relations (its
// description says how many); the same graph and seed give the same relations, and without a
// describer there are none.
func TestAggregation(t *testing.T) {
	ctx := context.Background()
	store, emb := ingested(t)
	b := &layers.Builder{Store: store, Embedder: emb, Summarizer: layers.Extractive{}, Describer: layers.ExtractiveRelations{}, Log: zerolog.Nop(), Seed: 7, Options: layers.DefaultOptions()}
	built, err := b.Build(ctx)
	if err != nil {
		t.Fatal(err)
	}
	first := summaryRelations(t, store, built)
	total := 0
	for _, l := range built {
		rels := first[l.Layer]
		total += len(rels)
		if len(rels) != l.Aggregate.Relations || l.Aggregate.Tau < 2 || len(rels) > l.Aggregate.Pairs {
			t.Errorf("layer %d: %d relations stored, stats %+v", l.Layer, len(rels), l.Aggregate)
		}
		for _, r := range rels {
			var n int
			if _, err := fmt.Sscan(r.Description, &n); err != nil || float64(n) < l.Aggregate.Tau || !strings.Contains(r.Description, "relations join their members") {
				t.Errorf("layer %d: relation %s -- %s described %q, want at least τ=%.1f relations", l.Layer, r.Source, r.Target, r.Description, l.Aggregate.Tau)
			}
			if r.Weight <= 0 || len(r.ChunkIDs) != 0 {
				t.Errorf("layer %d: relation %+v", l.Layer, r)
			}
		}
	}
	if total == 0 {
		t.Fatalf("no inter-summary relation over the test corpus: %+v", built)
	}

	// Built again, over the graph as it now stands (summaries and their relations included):
	// the same relations, since the stage reads layer 0 only.
	again, err := b.Build(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if second := summaryRelations(t, store, again); !reflect.DeepEqual(first, second) {
		t.Errorf("a second build wrote other relations:\n%v\n%v", first, second)
	}
	// With layer 0's relations kept in a temporary file: the same relations, and no file left.
	b.TempDir = t.TempDir()
	layers.SpillEdgesFrom(b, 1)
	spilled, err := b.Build(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if third := summaryRelations(t, store, spilled); !reflect.DeepEqual(first, third) {
		t.Errorf("a build with the relations in a file wrote other relations:\n%v\n%v", first, third)
	}
	if left, err := os.ReadDir(b.TempDir); err != nil || len(left) != 0 {
		t.Errorf("temporary directory after the build: %d files, %v", len(left), err)
	}
	layers.SpillEdgesFrom(b, 0)

	b.Describer = nil
	plain, err := b.Build(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for l, rels := range summaryRelations(t, store, plain) {
		if len(rels) > 0 {
			t.Errorf("without a describer, layer %d has %d inter-summary relations", l, len(rels))
		}
	}
}

// TestRedescribesStored: an update asks the model again for an inter-summary relation whose
// stored description the model wrote, never for one ExtractiveRelations wrote (short evidence),
// and always with All.
func TestRedescribesStored(t *testing.T) {
	extractive, err := layers.ExtractiveRelations{}.DescribeRelation(context.Background(), layers.SummaryRelation{Count: 12, Evidence: []string{"The guild owns the ship."}})
	if err != nil {
		t.Fatal(err)
	}
	counted, _ := layers.ExtractiveRelations{}.DescribeRelation(context.Background(), layers.SummaryRelation{Count: 3})
	for _, tc := range []struct {
		desc string
		all  bool
		want bool
	}{
		{extractive, false, false},
		{counted, false, false},
		{"The guild's captains sail the ships it owns.", false, true},
		{"12 relations join their members", false, true}, // no period: not the extractive form
		{"Twelve relations join their members. They trade.", false, true},
		{extractive, true, true},
	} {
		if got := (&layers.LLMRelations{All: tc.all}).RedescribesStored(tc.desc); got != tc.want {
			t.Errorf("RedescribesStored(%q) with All=%v = %v, want %v", tc.desc, tc.all, got, tc.want)
		}
	}
}
