package layers_test

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/rs/zerolog"

	"github.com/stratarag/strata/internal/embedded"
	"github.com/stratarag/strata/internal/embedding"
	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/teststore"
	"github.com/stratarag/strata/pipeline/layers"
)

// ingested returns a store holding the test corpus, ingested offline, and its embedder.
func ingested(t *testing.T) (*embedded.Store, embedding.Embedder) {
	f := teststore.Ingested(t, 64)
	return f.Store, f.Embedder
}

// countingSummarizer wraps the extractive summarizer and records cluster sizes.
type countingSummarizer struct {
	mu    sync.Mutex
	sizes []int
}

func (c *countingSummarizer) Summarize(ctx context.Context, members []layers.Member) ([]layers.Summary, error) {
	c.mu.Lock()
	c.sizes = append(c.sizes, len(members))
	c.mu.Unlock()
	return layers.Extractive{}.Summarize(ctx, members)
}

func TestBuildHierarchy(t *testing.T) {
	ctx := context.Background()
	store, emb := ingested(t)
	sum := &countingSummarizer{}
	b := &layers.Builder{Store: store, Embedder: emb, Summarizer: sum, Log: zerolog.Nop()}
	built, err := b.Build(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(built) == 0 {
		t.Fatal("no summary layer built over the testdata graph")
	}
	maxSize := layers.DefaultOptions().MaxClusterSize
	for _, n := range sum.sizes {
		if n < 2 || n > maxSize {
			t.Errorf("a cluster of %d member(s) was summarized, want 2..%d", n, maxSize)
		}
	}
	total := 0
	for i, l := range built {
		if l.Layer != i+1 || l.Summaries == 0 || l.Summaries >= l.Members || l.MaxCluster > maxSize || l.Members <= layers.DefaultOptions().ClusterSize {
			t.Errorf("layer %d = %+v", i+1, l)
		}
		total += l.Summaries
		summaries, err := store.EntitiesByLayer(ctx, l.Layer)
		if err != nil {
			t.Fatal(err)
		}
		if len(summaries) != l.Summaries {
			t.Errorf("layer %d: %d stored, %d reported", l.Layer, len(summaries), l.Summaries)
		}
		for _, s := range summaries {
			if !strings.HasSuffix(s.ID, fmt.Sprintf(" @L%d", l.Layer)) || len(s.Embedding) == 0 || s.Description == "" {
				t.Errorf("summary %+v", s.ID)
			}
			m, err := store.ExpandLocal(ctx, []string{s.ID}, graph.LocalOptions{})
			if err != nil || len(m.Entities) != 1 {
				t.Errorf("summary %s not found: %v", s.ID, err)
			}
		}
	}
	st, err := store.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Nodes["Summary"] != int64(total) || st.Relationships["SUMMARIZED_BY"] < int64(2*built[0].Summaries) {
		t.Errorf("stats %+v for %d summaries", st, total)
	}
	before := st

	// A rebuild replaces the hierarchy instead of adding to it.
	if _, err := b.Build(ctx); err != nil {
		t.Fatal(err)
	}
	after, err := store.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if after.Nodes["Summary"] != before.Nodes["Summary"] || after.Relationships["SUMMARIZED_BY"] != before.Relationships["SUMMARIZED_BY"] {
		t.Errorf("rebuild changed the hierarchy: %+v then %+v", before, after)
	}
}

func TestBuildTooSmall(t *testing.T) {
	ctx := context.Background()
	store, err := embedded.Open(ctx, t.TempDir(), embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	emb := embedding.NewOffline(16)
	vecs, _ := emb.Embed(ctx, []string{"Vell island", "Saltmere city"})
	if err := store.Apply(ctx, graph.Batch{Entities: []graph.Entity{
		{ID: "VELL", Name: "Vell", Type: "location", Description: "An island.", Embedding: vecs[0]},
		{ID: "SALTMERE", Name: "Saltmere", Type: "location", Description: "A city.", Embedding: vecs[1]},
	}}); err != nil {
		t.Fatal(err)
	}
	built, err := (&layers.Builder{Store: store, Embedder: emb, Summarizer: layers.Extractive{}, Log: zerolog.Nop()}).Build(ctx)
	if err != nil || len(built) != 0 {
		t.Errorf("two entities: built %v, %v; want nothing", built, err)
	}
}

func TestExtractiveSummary(t *testing.T) {
	ctx := context.Background()
	// Members come most connected first, as Builder passes them.
	got, err := layers.Extractive{}.Summarize(ctx, []layers.Member{
		{Entity: graph.Entity{ID: "C", Name: "Saltmere Guild", Type: "organization", Description: "A guild of chart makers."}, Connections: 9, Label: "Saltmere Guild"},
		{Entity: graph.Entity{ID: "A", Name: "Ilsa Marrow", Type: "person", Description: "Founded the guild. Later led it."}, Connections: 5, Label: "Ilsa Marrow"},
		{Entity: graph.Entity{ID: "B", Name: "Edda Fenwick", Type: "person", Description: "Led the guild."}, Connections: 3, Label: "Edda Fenwick"},
		{Entity: graph.Entity{ID: "D", Name: "Corvin Hale", Type: "person", Description: ""}, Connections: 1, Label: "Corvin Hale"},
	})
	if err != nil || len(got) != 1 {
		t.Fatalf("%v, %v", got, err)
	}
	s := got[0]
	if s.Name != "Saltmere Guild, Ilsa Marrow, Edda Fenwick and 1 more" || s.Type != "person" {
		t.Errorf("summary %+v", s)
	}
	want := "A group of 4 related entities: Saltmere Guild, Ilsa Marrow, Edda Fenwick, Corvin Hale. A guild of chart makers. Founded the guild. Led the guild."
	if s.Description != want {
		t.Errorf("description %q\nwant        %q", s.Description, want)
	}
	if layers.SummaryID("Saltmere Guild", 2) != "SALTMERE GUILD @L2" {
		t.Error("SummaryID format")
	}

	// A summary of summaries names them by their labels, once each, and leaves their
	// descriptions (lists of labels) out.
	got, err = layers.Extractive{}.Summarize(ctx, []layers.Member{
		{Entity: graph.Entity{ID: "X @L1", Name: "Amazon, Apple, Google and 17 more", Type: "organization", Description: "A group of 20 related entities: Amazon.", Layer: 1}, Connections: 90, Label: "Amazon"},
		{Entity: graph.Entity{ID: "Y @L1", Name: "Amazon, Prime Day and 9 more", Type: "event", Description: "A group of 11 related entities: Amazon.", Layer: 1}, Connections: 40, Label: "Amazon"},
		{Entity: graph.Entity{ID: "Z @L1", Name: "NBA, Lakers and 30 more", Type: "organization", Description: "A group of 32 related entities: NBA.", Layer: 1}, Connections: 30, Label: "NBA"},
	})
	if err != nil || len(got) != 1 {
		t.Fatalf("%v, %v", got, err)
	}
	if s := got[0]; s.Name != "Amazon, NBA and 1 more" || s.Description != "A group of 3 related entities: Amazon, NBA." || s.Type != "organization" {
		t.Errorf("summary of summaries %+v", s)
	}
}

// recordingSummarizer wraps the extractive summarizer and records every cluster it is given.
type recordingSummarizer struct {
	mu       sync.Mutex
	clusters map[string][]layers.Member // by summary name
}

func (r *recordingSummarizer) Summarize(ctx context.Context, members []layers.Member) ([]layers.Summary, error) {
	s, err := layers.Extractive{}.Summarize(ctx, members)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.clusters == nil {
		r.clusters = map[string][]layers.Member{}
	}
	r.clusters[s[0].Name] = members
	return s, err
}

// TestBuildCountsDegreesFromRelations: the index ranks and names members by the relations
// stored, not by Entity.Degree (0 here, since ComputeComponents never ran), and a rebuild after
// ComputeComponents wrote the degrees builds the same summaries.
func TestBuildCountsDegreesFromRelations(t *testing.T) {
	ctx := context.Background()
	src, emb := ingested(t)
	entities, err := src.EntitiesByLayer(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	var keys []graph.RelationKey
	for i := range entities {
		for j := i + 1; j < len(entities); j++ {
			keys = append(keys, graph.NewRelationKey(entities[i].ID, entities[j].ID))
		}
	}
	relations, err := src.Relations(ctx, keys)
	if err != nil || len(relations) == 0 {
		t.Fatalf("relations: %d, %v", len(relations), err)
	}
	degree := map[string]int{}
	for _, r := range relations {
		degree[r.Source]++
		degree[r.Target]++
	}
	store, err := embedded.Open(ctx, t.TempDir(), embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if err := store.Apply(ctx, graph.Batch{Entities: entities, Relations: relations}); err != nil {
		t.Fatal(err)
	}

	build := func() (*recordingSummarizer, []graph.Entity) {
		rec := &recordingSummarizer{}
		b := &layers.Builder{Store: store, Embedder: emb, Summarizer: rec, Log: zerolog.Nop(),
			Options: layers.Options{ClusterSize: 4, MaxClusterSize: 8}}
		if _, err := b.Build(ctx); err != nil {
			t.Fatal(err)
		}
		sums, err := store.EntitiesByLayer(ctx, 1)
		if err != nil || len(sums) < 2 {
			t.Fatalf("layer 1: %d summaries, %v", len(sums), err)
		}
		return rec, sums
	}
	first, sums := build()
	for name, members := range first.clusters {
		if members[0].Layer != 0 {
			continue
		}
		most := 0
		for _, m := range members {
			most = max(most, degree[m.ID])
			if m.Degree != degree[m.ID] {
				t.Errorf("%s: degree %d, want %d from the relations", m.ID, m.Degree, degree[m.ID])
			}
		}
		if members[0].Connections != most || degree[members[0].ID] != most || !strings.HasPrefix(name, members[0].Name) {
			t.Errorf("summary %q: first member %s with %d connections; want one with %d relations, named first",
				name, members[0].ID, members[0].Connections, most)
		}
	}

	if _, err := store.ComputeComponents(ctx); err != nil {
		t.Fatal(err)
	}
	second, again := build()
	if !reflect.DeepEqual(sums, again) {
		t.Errorf("the rebuild after ComputeComponents changed the summaries")
	}
	if len(first.clusters) != len(second.clusters) {
		t.Errorf("%d clusters, then %d", len(first.clusters), len(second.clusters))
	}
	for name, members := range first.clusters {
		if other, ok := second.clusters[name]; !ok || len(other) != len(members) {
			t.Errorf("cluster %q differs in the rebuild", name)
		}
	}
}
