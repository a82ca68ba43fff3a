package retrieval

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/stratarag/strata/internal/embedded"
	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/pipeline/pipelinetest"
)

// TestArchFind: both searches return up to k nodes at every layer, top layer first; the flat
// search's layers are each layer's own best, and the descent's nodes below the top are members
// of the communities found one layer up.
func TestArchFind(t *testing.T) {
	f, e, qvec := questionFixture(t, "Who designed the Kestrel Point Lighthouse?")
	ctx := context.Background()
	layers, err := e.archLayers(ctx)
	if err != nil || layers < 1 {
		t.Fatalf("fixture has %d attributed-community layers (%v); want at least 1", layers, err)
	}
	const k = 3
	byLayer := func(hits []archHit) map[int][]string {
		out := map[int][]string{}
		for _, h := range hits {
			out[h.layer] = append(out[h.layer], h.hit.ID)
		}
		return out
	}
	flat, err := archFindFlat(ctx, f.Store, qvec, layers, k)
	if err != nil {
		t.Fatal(err)
	}
	descent, err := archDescent(ctx, f.Store, qvec, layers, k)
	if err != nil {
		t.Fatal(err)
	}
	if flat[0].layer != layers || descent[0].layer != layers {
		t.Errorf("first hits at layers %d and %d, want the top %d", flat[0].layer, descent[0].layer, layers)
	}
	fl, de := byLayer(flat), byLayer(descent)
	for l := layers; l >= 0; l-- {
		want, err := f.Store.ArchSearch(ctx, l, qvec, nil, k)
		if err != nil {
			t.Fatal(err)
		}
		if ids := hitIDs(want); l > 0 && (!slices.Equal(fl[l], ids) || len(ids) == 0) {
			t.Errorf("flat layer %d: %v, want %v", l, fl[l], ids)
		}
		if l == 0 && len(fl[0]) > 0 {
			t.Errorf("flat search found layer 0 %v itself; Engine.archEntities does", fl[0])
		}
		if len(de[l]) == 0 || len(de[l]) > k {
			t.Errorf("descent layer %d: %v, want 1 to %d nodes", l, de[l], k)
		}
		if l == layers {
			continue
		}
		above, err := f.Store.ArchCommunities(ctx, de[l+1])
		if err != nil {
			t.Fatal(err)
		}
		var members []string
		for _, c := range above {
			members = append(members, c.Members...)
		}
		for _, id := range de[l] {
			if !slices.Contains(members, id) {
				t.Errorf("descent layer %d: %s is no member of the communities found above, %v", l, id, de[l+1])
			}
		}
	}
}

// TestArchEntities: the flat search's layer 0 holds extracted entities only, at most k, scored
// by similarity, and finds an entity the question names.
func TestArchEntities(t *testing.T) {
	q := "Who designed the Kestrel Point Lighthouse?"
	f, e, qvec := questionFixture(t, q)
	ctx := context.Background()
	hits, err := e.archEntities(ctx, f.Store, q, qvec, 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 || len(hits) > 5 || !slices.Contains(hitIDs(hits), "KESTREL POINT LIGHTHOUSE") {
		t.Fatalf("hits %v: want 1 to 5 with the lighthouse", hits)
	}
	ents, err := f.Store.Entities(ctx, hitIDs(hits))
	if err != nil {
		t.Fatal(err)
	}
	for i, en := range ents {
		if en.Layer != 0 || hits[i].Score <= 0 || hits[i].Score > 1 {
			t.Errorf("hit %v: entity of layer %d; want layer 0 scored in (0, 1]", hits[i], en.Layer)
		}
	}
}

// questionFixture is the ingested test store, an engine over it, and the vector of question q.
func questionFixture(t *testing.T, q string) (pipelinetest.Fixture, *Engine, []float32) {
	t.Helper()
	f := pipelinetest.Ingested(t, 384)
	vecs, err := f.Embedder.Embed(context.Background(), []string{q})
	if err != nil {
		t.Fatal(err)
	}
	return f, &Engine{Store: f.Store, Embedder: f.Embedder, Tokenizer: f.Tokenizer}, vecs[0]
}

func hitIDs(hs []graph.Hit) []string {
	var out []string
	for _, h := range hs {
		out = append(out, h.ID)
	}
	return out
}

// TestArchChunksWalk: arch's sources take in the walk over layer 0, so the document the walk
// ranks first after the top lexical one (sharing rare entities with it) stands higher in them
// than the lexical ranking alone puts it.
func TestArchChunksWalk(t *testing.T) {
	q := "Which organization was chaired by the man who signed the Treaty of Vell for Port Avel?"
	f, e, qvec := questionFixture(t, q)
	ctx := context.Background()
	const topK = 10
	lexical, _, err := e.lexicalChunks(ctx, q, qvec, topK*4)
	if err != nil {
		t.Fatal(err)
	}
	links, err := e.walkLinks(ctx, lexical)
	if err != nil {
		t.Fatal(err)
	}
	walked, _, err := e.walkChunks(ctx, links, nil)
	if err != nil || len(walked) == 0 {
		t.Fatalf("walk from %q: %v, %d chunks; want some", q, err, len(walked))
	}
	var lexDocs, archDocs []string
	for _, c := range lexical {
		if !slices.Contains(lexDocs, c.DocumentID) {
			lexDocs = append(lexDocs, c.DocumentID)
		}
	}
	best := ""
	for _, c := range walked {
		if c.DocumentID != lexDocs[0] {
			best = c.DocumentID
			break
		}
	}
	sources, err := e.archChunks(ctx, f.Store, q, qvec, nil, nil, topK)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range sources {
		archDocs = append(archDocs, c.DocumentID)
	}
	if a, l := slices.Index(archDocs, best), slices.Index(lexDocs, best); a < 0 || (l >= 0 && a >= l) {
		t.Errorf("the walk's best document %s is at %d in arch's sources %v, at %d lexically %v; want it higher",
			best, a, archDocs, l, lexDocs)
	}
}

// expandSpy records the entity ids of every ExpandLocal call.
type expandSpy struct {
	*embedded.Store
	mu    sync.Mutex
	calls [][]string
}

func (s *expandSpy) ExpandLocal(ctx context.Context, ids []string, opt graph.LocalOptions) (graph.LocalContext, error) {
	s.mu.Lock()
	s.calls = append(s.calls, slices.Clone(ids))
	s.mu.Unlock()
	return s.Store.ExpandLocal(ctx, ids, opt)
}

// TestArchChunksMembers: of the layer-1 communities the points come from, only the
// globalMembers members nearest to the question have their chunks read, not every member.
func TestArchChunksMembers(t *testing.T) {
	q := "Who designed the Kestrel Point Lighthouse?"
	f, e, qvec := questionFixture(t, q)
	ctx := context.Background()
	spy := &expandSpy{Store: f.Store}
	e.Store = spy
	hits, err := f.Store.ArchSearch(ctx, 1, qvec, nil, archNodes)
	if err != nil {
		t.Fatal(err)
	}
	comms, err := f.Store.ArchCommunities(ctx, hitIDs(hits))
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]archItem{}
	var points []archPoint
	var members []string
	for _, c := range comms {
		byID[c.ID] = archItem{id: c.ID, layer: 1, comm: c}
		points = append(points, archPoint{score: 50, layer: 1, sources: []string{c.ID}})
		members = append(members, c.Members...)
	}
	members = graph.UniqueIDs(members)
	if len(members) <= globalMembers {
		t.Fatalf("the communities found hold %d members; the test needs more than %d", len(members), globalMembers)
	}
	if _, err := e.archChunks(ctx, spy, q, qvec, points, byID, 10); err != nil {
		t.Fatal(err)
	}
	nearest, err := f.Store.ArchSearch(ctx, 0, qvec, members, globalMembers)
	if err != nil {
		t.Fatal(err)
	}
	want := hitIDs(nearest)
	slices.Sort(want)
	var got []string
	for _, ids := range spy.calls {
		for _, id := range ids {
			if slices.Contains(members, id) {
				got = append(got, id)
			}
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("chunks read for members %v; want the %d nearest of %d: %v", got, globalMembers, len(members), want)
	}
}
