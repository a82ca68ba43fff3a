package layers_test

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/rs/zerolog"

	"github.com/stratarag/strata/internal/cluster"
	"github.com/stratarag/strata/internal/embedded"
	"github.com/stratarag/strata/internal/embedding"
	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/pipeline/layers"
	"github.com/stratarag/strata/pipeline/pipelinetest"
)

// ingested returns a store holding the test corpus, ingested offline, and its embedder.
func ingested(t *testing.T) (*embedded.Store, embedding.Embedder) {
	f := pipelinetest.Ingested(t, 64)
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
	b := &layers.Builder{Store: store, Embedder: emb, Summarizer: sum, Log: zerolog.Nop(), Options: layers.DefaultOptions()}
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
	built, err := (&layers.Builder{Store: store, Embedder: emb, Summarizer: layers.Extractive{}, Log: zerolog.Nop(), Options: layers.DefaultOptions()}).Build(ctx)
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
			Options: sized(4, 8, 5)}
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

// memberRecorder records, for every cluster of extracted entities it is asked to summarize, the
// sorted ids of its members, and whether each member came with its description and without its
// embedding.
type memberRecorder struct {
	mu       sync.Mutex
	clusters []string
	bare     int // layer-0 members without description
	vectors  int // layer-0 members with their embedding, which no summarizer reads
}

func (r *memberRecorder) Summarize(ctx context.Context, members []layers.Member) ([]layers.Summary, error) {
	if members[0].Layer == 0 {
		ids := make([]string, len(members))
		bare, vectors := 0, 0
		for i, m := range members {
			ids[i] = m.ID
			if m.Description == "" {
				bare++
			}
			if len(m.Embedding) > 0 {
				vectors++
			}
		}
		slices.Sort(ids)
		r.mu.Lock()
		r.clusters = append(r.clusters, strings.Join(ids, "|"))
		r.bare += bare
		r.vectors += vectors
		r.mu.Unlock()
	}
	return layers.Extractive{}.Summarize(ctx, members)
}

// TestBuildReadsLayerZeroInPages: over a layer of several pages (entities without embeddings
// among them), the clusters of layer 0 are those cluster.Bounded finds over all the embeddings
// held in memory, and every member reaches the summarizer with its description, though the
// index holds layer 0 without it, and without its embedding, which no summarizer reads.
// storeOf returns a new store holding n layer-0 entities named by name, embedded by emb unless
// bare says the entity has no embedding yet.
func storeOf(t *testing.T, emb embedding.Embedder, n int, name func(int) string, bare func(int) bool) *embedded.Store {
	t.Helper()
	ctx := context.Background()
	store, err := embedded.Open(ctx, t.TempDir(), embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	var es []graph.Entity
	for i := range n {
		e := graph.Entity{ID: graph.NormalizeID(name(i)), Name: name(i), Type: "thing", Description: "About " + name(i) + ".", ComponentID: -1}
		if !bare(i) {
			v, err := emb.Embed(ctx, []string{e.EmbeddingText()})
			if err != nil {
				t.Fatal(err)
			}
			e.Embedding = v[0]
		}
		es = append(es, e)
	}
	if err := store.Apply(ctx, graph.Batch{Entities: es}); err != nil {
		t.Fatal(err)
	}
	return store
}

func TestBuildReadsLayerZeroInPages(t *testing.T) {
	ctx := context.Background()
	emb := embedding.NewOffline(32)
	store := storeOf(t, emb, 4500,
		func(i int) string {
			return fmt.Sprintf("Entity %05d %s", i, []string{"harbor", "guild", "treaty", "lighthouse", "salt"}[i%5])
		},
		func(i int) bool { return i%97 == 0 }) // some entities have no embedding yet: the index skips them
	stored, err := store.EntitiesByLayer(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	var rows [][]float32
	for _, e := range stored {
		if len(e.Embedding) > 0 {
			ids = append(ids, e.ID)
			rows = append(rows, e.Embedding)
		}
	}
	opt := layers.DefaultOptions()
	groups, err := cluster.Bounded(rows, cluster.BoundedOptions{
		Size: opt.ClusterSize, MaxSize: opt.MaxClusterSize, Dims: opt.Dims, MaxComponents: opt.MaxComponents,
		Threshold: opt.Threshold, GMM: cluster.GMMOptions{Covariance: cluster.Diag, Seed: 5},
	})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, g := range groups {
		if len(g.Rows) < 2 {
			continue
		}
		m := make([]string, len(g.Rows))
		for i, r := range g.Rows {
			m[i] = ids[r]
		}
		slices.Sort(m)
		want = append(want, strings.Join(m, "|"))
	}
	rec := &memberRecorder{}
	b := &layers.Builder{Store: store, Embedder: emb, Summarizer: rec, Log: zerolog.Nop(), Seed: 5, Options: layers.DefaultOptions()}
	if _, err := b.Build(ctx); err != nil {
		t.Fatal(err)
	}
	slices.Sort(want)
	slices.Sort(rec.clusters)
	if len(want) < 100 || !slices.Equal(rec.clusters, want) {
		t.Errorf("layer 0 was summarized in %d clusters, in-memory clustering finds %d (or they differ)", len(rec.clusters), len(want))
	}
	if rec.bare > 0 {
		t.Errorf("%d layer-0 members reached the summarizer without description", rec.bare)
	}
	if rec.vectors > 0 {
		t.Errorf("%d layer-0 members reached the summarizer with their embedding", rec.vectors)
	}
}

// sameName names every cluster alike, so that all of a layer's clusters give one summary, and
// describes each by its most connected member.
type sameName struct {
	mu    sync.Mutex
	descs []string
}

func (s *sameName) Summarize(_ context.Context, members []layers.Member) ([]layers.Summary, error) {
	d := "Led by " + members[0].ID + "."
	s.mu.Lock()
	s.descs = append(s.descs, d)
	s.mu.Unlock()
	return []layers.Summary{{Name: "Harbor Guild", Type: "organization", Description: d}}, nil
}

// TestBuildMergesAcrossWindows: a summary that clusters summarized in different windows (the
// index writes a window of clusters at a time) all give is stored once, with every cluster's
// description and the embedding of the whole.
func TestBuildMergesAcrossWindows(t *testing.T) {
	ctx := context.Background()
	emb := embedding.NewOffline(16)
	store := storeOf(t, emb, 9000, func(i int) string { return fmt.Sprintf("Place %05d", i) }, func(int) bool { return false })
	sum := &sameName{}
	b := &layers.Builder{Store: store, Embedder: emb, Summarizer: sum, Log: zerolog.Nop(),
		Options: sized(2, 4, 1)}
	built, err := b.Build(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(built) != 1 || built[0].Clusters <= 2048 {
		t.Fatalf("built %+v, want one layer of more than 2048 clusters (two windows)", built)
	}
	got, err := store.EntitiesByLayer(ctx, 1)
	if err != nil || len(got) != 1 {
		t.Fatalf("layer 1: %d summaries, %v; want the one all clusters name", len(got), err)
	}
	distinct := map[string]bool{}
	for _, d := range sum.descs {
		distinct[d] = true
		if !strings.Contains(got[0].Description, d) {
			t.Fatalf("the summary's description lacks %q, given by one of its clusters", d)
		}
	}
	if lines := strings.Count(got[0].Description, "\n") + 1; lines != len(distinct) {
		t.Errorf("the description has %d lines, want one per distinct description (%d)", lines, len(distinct))
	}
	want, err := emb.Embed(ctx, []string{got[0].EmbeddingText()})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got[0].Embedding, want[0]) {
		t.Error("the summary's embedding is not that of its whole description")
	}
	led := strings.TrimSuffix(strings.TrimPrefix(sum.descs[0], "Led by "), ".")
	if h, err := store.Ancestors(ctx, []string{led}); err != nil || len(h.Links) != 1 {
		t.Errorf("%s, the best member of a cluster, has %d summary links (%v), want 1", led, len(h.Links), err)
	}
}

// TestBuildHeldOrStreamedEmbeddings: a layer clustered from its embeddings held in memory
// between the passes and one read from the store in every pass give the same hierarchy, summary
// for summary and link for link.
func TestBuildHeldOrStreamedEmbeddings(t *testing.T) {
	ctx := context.Background()
	emb := embedding.NewOffline(32)
	store := storeOf(t, emb, 1500,
		func(i int) string {
			return fmt.Sprintf("Entity %05d %s", i, []string{"harbor", "guild", "treaty", "lighthouse", "salt"}[i%5])
		},
		func(i int) bool { return i%97 == 0 })
	hierarchy := func(hold int) ([]layers.Layer, []graph.Entity, []graph.SummaryLink) {
		b := &layers.Builder{Store: store, Embedder: emb, Summarizer: layers.Extractive{}, Log: zerolog.Nop(), Seed: 5, Options: layers.DefaultOptions()}
		layers.HoldEmbeddingsUpTo(b, hold)
		built, err := b.Build(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var sums []graph.Entity
		var links []graph.SummaryLink
		for l := 0; l <= len(built); l++ {
			ls, err := store.LayerLinks(ctx, l)
			if err != nil {
				t.Fatal(err)
			}
			links = append(links, ls...)
			if l == 0 {
				continue
			}
			es, err := store.EntitiesByLayer(ctx, l)
			if err != nil {
				t.Fatal(err)
			}
			sums = append(sums, es...)
		}
		return built, sums, links
	}
	heldLayers, heldSums, heldLinks := hierarchy(0)
	streamedLayers, streamedSums, streamedLinks := hierarchy(1)
	if len(heldLayers) < 2 || len(heldSums) == 0 {
		t.Fatalf("built %d layers, %d summaries; want 2 layers or more", len(heldLayers), len(heldSums))
	}
	if !reflect.DeepEqual(heldLayers, streamedLayers) {
		t.Errorf("layers: held %+v, streamed %+v", heldLayers, streamedLayers)
	}
	if !reflect.DeepEqual(heldSums, streamedSums) {
		t.Errorf("summaries differ: held %d, streamed %d", len(heldSums), len(streamedSums))
	}
	if !reflect.DeepEqual(heldLinks, streamedLinks) {
		t.Errorf("links differ: held %d, streamed %d", len(heldLinks), len(streamedLinks))
	}
}

// sized is DefaultOptions with smaller clusters and fewer layers.
func sized(cluster, maxCluster, maxLayers int) layers.Options {
	o := layers.DefaultOptions()
	o.ClusterSize, o.MaxClusterSize, o.MaxLayers = cluster, maxCluster, maxLayers
	return o
}
