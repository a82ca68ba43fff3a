package reports

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stratarag/strata/internal/embedded"
	"github.com/stratarag/strata/internal/embedding"
	"github.com/stratarag/strata/internal/graph"
)

func TestBuildReport(t *testing.T) {
	m := graph.Members{
		Entities: []graph.Entity{
			{ID: "VELL", Name: "Vell", Degree: 3, Description: "A small island. It is neutral."},
			{ID: "SALTMERE", Name: "Saltmere", Degree: 5, Description: "A chart-making city.\nRival of Port Avel."},
			{ID: "PORT AVEL", Name: "Port Avel", Degree: 4, Description: "A salt port."},
			{ID: "DUNMARROW", Name: "Dunmarrow", Degree: 1, Description: ""},
		},
		Relations: []graph.Relation{
			{Source: "SALTMERE", Target: "VELL", Weight: 1, Description: "Signed a treaty at Vell."},
			{Source: "PORT AVEL", Target: "SALTMERE", Weight: 7, Description: "Rival harbors. Long dispute."},
		},
	}
	r := buildReport(m)
	if r.Title != "Saltmere, Port Avel, Vell and 1 more" {
		t.Errorf("title %q", r.Title)
	}
	if r.Summary != "A chart-making city. A salt port. A small island." {
		t.Errorf("summary %q", r.Summary)
	}
	if len(r.Findings) != 2 || r.Findings[0].Summary != "Port Avel – Saltmere" || r.Findings[0].Explanation != "Rival harbors." {
		t.Errorf("findings %+v", r.Findings)
	}
	if r.Rating <= 0 || r.Rating > 10 {
		t.Errorf("rating %v", r.Rating)
	}
	small := buildReport(graph.Members{Entities: m.Entities[:1]})
	if small.Rating >= r.Rating || small.Title != "Vell" {
		t.Errorf("a single-entity community should rate lower: %+v", small)
	}
	if empty := buildReport(graph.Members{}); empty.Title != "Empty community" {
		t.Errorf("empty: %+v", empty)
	}
}

func TestReportsWritesEveryCommunity(t *testing.T) {
	ctx := context.Background()
	store, err := embedded.Open(ctx, t.TempDir(), embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	var b graph.Batch
	for _, n := range []string{"A", "B", "C", "D"} {
		b.Entities = append(b.Entities, graph.Entity{ID: n, Name: "Name " + n, Type: "other", Description: n + " is here.", ComponentID: -1})
	}
	b.Relations = []graph.Relation{{Source: "A", Target: "B", Weight: 2, Description: "A knows B."}, {Source: "C", Target: "D", Weight: 1, Description: "C knows D."}}
	if err := store.Apply(ctx, b); err != nil {
		t.Fatal(err)
	}
	communities, err := store.ComputeCommunities(ctx, graph.DefaultLeidenParams())
	if err != nil {
		t.Fatal(err)
	}
	x := &Extractive{Embedder: embedding.NewOffline(16), Batch: 1}
	if err := x.Reports(ctx, store, communities); err != nil {
		t.Fatal(err)
	}
	stored, err := store.CommunitiesByLevel(ctx, -1)
	if err != nil {
		t.Fatal(err)
	}
	if len(stored) != len(communities) || len(stored) == 0 {
		t.Fatalf("%d communities stored, %d computed", len(stored), len(communities))
	}
	for _, c := range stored {
		var r Report
		if err := json.Unmarshal([]byte(c.Report), &r); err != nil {
			t.Errorf("%s: report is not JSON: %v", c.ID, err)
		}
		if c.Title == "" || r.Title != c.Title || !strings.Contains(c.Title, "Name") || len(c.Embedding) != 16 {
			t.Errorf("%s: %+v", c.ID, c)
		}
	}
}
