package retrieval

import (
	"reflect"
	"slices"
	"testing"

	"github.com/stratarag/strata/cypher"
	"github.com/stratarag/strata/internal/embedded"
	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/neo4jtest"
)

// hopBackends open an empty store of each backend; the Neo4j one is the server of the
// environment (package neo4jtest), emptied first.
var hopBackends = []struct {
	name string
	open func(t *testing.T) graph.Store
}{
	{"embedded", func(t *testing.T) graph.Store {
		s, err := embedded.Open(t.Context(), t.TempDir(), embedded.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}},
	{"neo4j", func(t *testing.T) graph.Store {
		srv := neo4jtest.Require(t)
		srv.Reset(t)
		s, err := cypher.Open(t.Context(), cypher.Config{URI: srv.URI, Username: srv.Username, Password: srv.Password, Database: srv.Database})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		return s
	}},
}

// hopStore writes into s a small graph for the hop of lca: a harbour log (the top document)
// names the seeds' town Saltmere, the ship Bram Hollow and the captain Cora Vane. Saltmere,
// Kestrel Point and Bram Hollow share the layer-1 summary P; Cora Vane is under Q only. Each of
// Saltmere, Bram Hollow and Cora Vane has its article, and a ledger names Bram Hollow too.
func hopStore(t *testing.T, s graph.Store) {
	t.Helper()
	ctx := t.Context()
	docs := map[string]string{"log": "Harbour Log", "saltmere": "Saltmere", "bram": "Bram Hollow", "cora": "Cora Vane", "ledger": "Ledger of 1130"}
	names := map[string][]string{ // document → the entities its one chunk names
		"log": {"Saltmere", "Bram Hollow", "Cora Vane"}, "saltmere": {"Saltmere"}, "bram": {"Bram Hollow"},
		"cora": {"Cora Vane"}, "ledger": {"Bram Hollow", "Kestrel Point"},
	}
	var b graph.Batch
	for id, title := range docs {
		b.Documents = append(b.Documents, graph.Document{ID: id, Title: title, Metadata: "{}"})
		c := graph.Chunk{ID: id + "-0", DocumentID: id, Text: title, Tokens: 2}
		b.Chunks = append(b.Chunks, c)
		for _, n := range names[id] {
			b.Mentions = append(b.Mentions, graph.Mention{ChunkID: c.ID, EntityID: graph.NormalizeID(n), Name: n})
		}
	}
	for _, n := range []string{"Saltmere", "Kestrel Point", "Bram Hollow", "Cora Vane"} {
		b.Entities = append(b.Entities, graph.Entity{ID: graph.NormalizeID(n), Name: n, Type: "thing", ComponentID: -1})
	}
	b.Entities = append(b.Entities, graph.Entity{ID: "P", Name: "P", Layer: 1, ComponentID: -1}, graph.Entity{ID: "Q", Name: "Q", Layer: 1, ComponentID: -1})
	for _, l := range [][2]string{{"SALTMERE", "P"}, {"KESTREL POINT", "P"}, {"BRAM HOLLOW", "P"}, {"CORA VANE", "Q"}} {
		b.SummaryLinks = append(b.SummaryLinks, graph.SummaryLink{Member: l[0], Summary: l[1], Weight: 1})
	}
	if err := s.Apply(ctx, b); err != nil {
		t.Fatal(err)
	}
}

// TestLCAHop: from the top document, lca keeps the seeds it names and the entities under the
// seeds' lowest common ancestor, reaches the other documents naming the latter, and ranks the
// articles about both; an entity outside that ancestor's part of the hierarchy (Cora Vane) leads
// nowhere, and seeds without a common summary have no such part. The same on both backends.
func TestLCAHop(t *testing.T) {
	for _, b := range hopBackends {
		t.Run(b.name, func(t *testing.T) {
			s := b.open(t)
			hopStore(t, s)
			testLCAHop(t, s)
		})
	}
}

func testLCAHop(t *testing.T, s graph.Store) {
	ctx := t.Context()
	e := &Engine{Store: s}
	top, err := s.Chunks(ctx, []string{"log-0"})
	if err != nil {
		t.Fatal(err)
	}
	lx, err := e.lcaTopLinks(ctx, top)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		seeds    []string
		named    []string // lcaHopped.named
		docs     []string // lcaHopped.docs
		subjects []string // the documents of the channel of lcaNamedWeight
		seedDocs []string // the documents of the channel of lcaSubjectWeight
	}{
		{"seeds under one summary", []string{"KESTREL POINT", "SALTMERE"}, []string{"SALTMERE", "BRAM HOLLOW"},
			[]string{"bram", "ledger"}, []string{"saltmere", "bram"}, []string{"saltmere"}},
		{"a lone seed is its own ancestor", []string{"SALTMERE"}, []string{"SALTMERE"}, nil, []string{"saltmere"}, []string{"saltmere"}},
		{"a seed the top document does not name", []string{"KESTREL POINT"}, nil, nil, nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h, err := s.Ancestors(ctx, tc.seeds)
			if err != nil {
				t.Fatal(err)
			}
			f := lcaFound{seeds: tc.seeds, h: h, groups: lcaGroups(tc.seeds, h.Links)}
			hop := lcaHop(f, "log", lx)
			if !slices.Equal(hop.named, tc.named) || !slices.Equal(hop.docs, tc.docs) {
				t.Errorf("hop named %v, docs %v; want %v, %v", hop.named, hop.docs, tc.named, tc.docs)
			}
			channels, _, err := e.lcaSubjects(ctx, "", tc.seeds, 0, hop, []channel{{lexicalWeight, top}})
			if err != nil {
				t.Fatal(err)
			}
			type list struct {
				weight float64
				docs   []string
			}
			var got, want []list
			for _, ch := range channels[1:] {
				got = append(got, list{ch.weight, channelDocuments([]channel{ch})})
			}
			for _, l := range []list{{lcaHopWeight, tc.docs}, {lcaSubjectWeight, tc.seedDocs}, {lcaNamedWeight, tc.subjects}} {
				if len(l.docs) > 0 {
					want = append(want, l)
				}
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("channels after the lexical one %+v, want %+v (hop, seeds' subjects, named subjects)", got, want)
			}
		})
	}
	// The article about the seed the question names scores as hi's named documents; a seed the
	// question does not name (Kestrel Point, named = 1) gives its article nothing.
	t.Run("named seeds", func(t *testing.T) {
		seeds := []string{"SALTMERE", "KESTREL POINT"}
		h, err := s.Ancestors(ctx, seeds)
		if err != nil {
			t.Fatal(err)
		}
		f := lcaFound{seeds: seeds, named: 1, h: h, groups: lcaGroups(seeds, h.Links)}
		for _, named := range []int{0, 1} {
			_, scores, err := e.lcaSubjects(ctx, "Which ship left Saltmere for Kestrel Point?", seeds, named, lcaHop(f, "log", lx), []channel{{lexicalWeight, top}})
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]float64{"saltmere": namedWeight}
			if named == 0 {
				want = nil
			}
			if !reflect.DeepEqual(scores, want) {
				t.Errorf("%d named seeds: scores %v, want %v", named, scores, want)
			}
		}
	})
}
