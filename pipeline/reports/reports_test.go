package reports

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

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
		Relations: []graph.Relation{ // as the store gives them: heaviest first
			{Source: "PORT AVEL", Target: "SALTMERE", Weight: 7, Description: "Rival harbors. Long dispute."},
			{Source: "SALTMERE", Target: "VELL", Weight: 1, Description: "Signed a treaty at Vell."},
		},
		RelationCount:  2,
		RelationWeight: 8,
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

// sizedStore counts the members of the communities whose members are being read at once, by
// the sizes the caller gave them, and makes every read wait a little for another to start, so
// that reads overlap whenever the reporter lets them.
type sizedStore struct {
	graph.ReadWriter
	size           map[string]int
	mu             sync.Mutex
	inFlight, peak int
	started        chan struct{}
}

func (s *sizedStore) CommunityMembers(ctx context.Context, id string, maxRelations int) (graph.Members, error) {
	s.mu.Lock()
	s.inFlight += s.size[id]
	s.peak = max(s.peak, s.inFlight)
	s.mu.Unlock()
	select {
	case s.started <- struct{}{}:
	case <-s.started:
	case <-time.After(20 * time.Millisecond):
	}
	defer func() {
		s.mu.Lock()
		s.inFlight -= s.size[id]
		s.mu.Unlock()
	}()
	return s.ReadWriter.CommunityMembers(ctx, id, maxRelations)
}

func TestReportsReadLargeCommunitiesAlone(t *testing.T) {
	ctx := t.Context()
	store, err := embedded.Open(ctx, t.TempDir(), embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	var b graph.Batch
	for i := range 12 {
		id := fmt.Sprintf("E%02d", i)
		b.Entities = append(b.Entities, graph.Entity{ID: id, Name: id, Type: "other", Description: id + ".", ComponentID: -1})
		if i%2 == 1 {
			b.Relations = append(b.Relations, graph.Relation{Source: fmt.Sprintf("E%02d", i-1), Target: id, Weight: 1})
		}
	}
	if err := store.Apply(ctx, b); err != nil {
		t.Fatal(err)
	}
	communities, err := store.ComputeCommunities(ctx, graph.DefaultLeidenParams())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		size    int
		largest int // the most members read at once allowed
	}{
		{"small, read together", 10, 4 * 10},
		{"over half the budget, read one at a time", memberBudget/2 + 1, memberBudget},
		{"over the budget, read alone", 3 * memberBudget, 3 * memberBudget},
	} {
		s := &sizedStore{ReadWriter: store, size: map[string]int{}, started: make(chan struct{})}
		sized := slices.Clone(communities)
		for i := range sized {
			sized[i].Size = tc.size
			s.size[sized[i].ID] = tc.size
		}
		x := &Extractive{Embedder: embedding.NewOffline(16), Concurrency: 4}
		if err := x.Reports(ctx, s, sized); err != nil {
			t.Fatal(err)
		}
		if s.peak > tc.largest || (tc.size < memberBudget/4 && s.peak <= tc.size) {
			t.Errorf("%s: %d members read at once, want at most %d (and overlapping reads when small)", tc.name, s.peak, tc.largest)
		}
	}
}
