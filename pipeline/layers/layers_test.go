package layers_test

import (
	"context"
	"fmt"
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

func (c *countingSummarizer) Summarize(ctx context.Context, members []graph.Entity) ([]layers.Summary, error) {
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
	for _, n := range sum.sizes {
		if n < 2 {
			t.Errorf("a cluster of %d member(s) was summarized", n)
		}
	}
	total := 0
	for i, l := range built {
		if l.Layer != i+1 || l.Summaries == 0 || l.Sparsity < 0 || l.Sparsity >= 0.98 {
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
	got, err := layers.Extractive{}.Summarize(context.Background(), []graph.Entity{
		{ID: "A", Name: "Ilsa Marrow", Type: "person", Degree: 5, Description: "Founded the guild. Later led it."},
		{ID: "B", Name: "Edda Fenwick", Type: "person", Degree: 3, Description: "Led the guild."},
		{ID: "C", Name: "Saltmere Guild", Type: "organization", Degree: 9, Description: "A guild of chart makers."},
		{ID: "D", Name: "Corvin Hale", Type: "person", Degree: 1, Description: ""},
	})
	if err != nil || len(got) != 1 {
		t.Fatalf("%v, %v", got, err)
	}
	s := got[0]
	if s.Name != "Saltmere Guild, Ilsa Marrow, Edda Fenwick and 1 more" || s.Type != "person" {
		t.Errorf("summary %+v", s)
	}
	if !strings.HasPrefix(s.Description, "A group of 4 related entities. A guild of chart makers. Founded the guild. Led the guild.") {
		t.Errorf("description %q", s.Description)
	}
	if layers.SummaryID("Saltmere Guild", 2) != "SALTMERE GUILD @L2" {
		t.Error("SummaryID format")
	}
}
