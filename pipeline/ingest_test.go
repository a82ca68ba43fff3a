package pipeline_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/stratarag/strata/internal/embedded"
	"github.com/stratarag/strata/internal/embedding"
	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/testcorpus"
	"github.com/stratarag/strata/internal/tokenizer"
	"github.com/stratarag/strata/pipeline"
	"github.com/stratarag/strata/pipeline/chunk"
	"github.com/stratarag/strata/pipeline/extract"
	"github.com/stratarag/strata/pipeline/reports"
)

var (
	corpusDir = filepath.Join("..", "testdata", "corpus")
	badDir    = filepath.Join("..", "testdata", "bad")
)

func newIngester(t testing.TB, store graph.Store, ex extract.Extractor) *pipeline.Ingester {
	t.Helper()
	tok, err := tokenizer.New()
	if err != nil {
		t.Fatal(err)
	}
	emb := embedding.NewOffline(64)
	if ex == nil {
		ex = extract.NewOffline()
	}
	return &pipeline.Ingester{
		Store: store, Extractor: ex, Embedder: emb, Tokenizer: tok,
		Reporter: &reports.Extractive{Embedder: emb},
		Log:      zerolog.Nop(), Options: pipeline.DefaultOptions(),
	}
}

func openStore(t testing.TB, dir string) *embedded.Store {
	t.Helper()
	s, err := embedded.Open(context.Background(), dir, embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func ingest(t testing.TB, store graph.Store, paths ...string) pipeline.Report {
	t.Helper()
	rep, err := newIngester(t, store, nil).Run(context.Background(), paths)
	if err != nil {
		t.Fatalf("ingest %v: %v", paths, err)
	}
	return rep
}

func TestIngestTestdataBuildsExpectedGraph(t *testing.T) {
	store := openStore(t, t.TempDir())
	rep := ingest(t, store, corpusDir)
	if rep.Documents != 17 || rep.Failed != 0 || len(rep.Problems) != 0 {
		t.Fatalf("report = %+v", rep)
	}
	if rep.Components == 0 || rep.Communities == 0 {
		t.Errorf("structure stages did not run: %+v", rep)
	}
	ctx := context.Background()
	want, err := testcorpus.ReadExpected()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range want.Entities {
		id := graph.NormalizeID(e.Name)
		got, err := store.Entities(ctx, []string{id})
		if err != nil || len(got) != 1 {
			t.Errorf("entity %q missing (%v)", e.Name, err)
			continue
		}
		if got[0].Name != e.Name || got[0].Description == "" || len(got[0].Embedding) == 0 || got[0].ComponentID < 0 {
			t.Errorf("entity %q = %+v", e.Name, got[0])
		}
		// Each listed document has a chunk that mentions the entity.
		lc, err := store.ExpandLocal(ctx, []string{id}, graph.LocalOptions{TopChunks: 100})
		if err != nil {
			t.Fatal(err)
		}
		docs := map[string]bool{}
		for _, c := range lc.Chunks {
			docs[c.DocumentID] = true
		}
		for _, d := range e.Documents {
			if !docs[d] {
				t.Errorf("no HAS_ENTITY from %s to %q", d, e.Name)
			}
		}
	}
	for _, r := range want.Relations {
		key := graph.NewRelationKey(graph.NormalizeID(r.Source), graph.NormalizeID(r.Target))
		got, err := store.Relations(ctx, []graph.RelationKey{key})
		if err != nil || len(got) != 1 || got[0].Weight <= 0 || got[0].Description == "" {
			t.Errorf("relation %q -- %q missing or empty: %+v %v", r.Source, r.Target, got, err)
		}
	}
	communities, err := store.CommunitiesByLevel(ctx, -1)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range communities {
		if c.Title == "" || c.Report == "" || len(c.Embedding) == 0 {
			t.Errorf("community %s has no report: %+v", c.ID, c)
		}
	}
}

func TestIngestTwiceChangesNothing(t *testing.T) {
	store := openStore(t, t.TempDir())
	ingest(t, store, corpusDir)
	before := snapshot(t, store)
	rep := ingest(t, store, corpusDir)
	if rep.Documents != 0 || rep.Unchanged != 17 || rep.Chunks != 0 || rep.Entities != 0 {
		t.Errorf("second run wrote something: %+v", rep)
	}
	if after := snapshot(t, store); !reflect.DeepEqual(before, after) {
		t.Error("second run changed the graph")
	}
}

// TestIngestInTwoRunsEqualsOneRun checks that merging with the stored graph gives the same result
// as ingesting everything at once.
func TestIngestInTwoRunsEqualsOneRun(t *testing.T) {
	once := openStore(t, t.TempDir())
	ingest(t, once, corpusDir)

	twice := openStore(t, t.TempDir())
	// The first files in walk order, named directly from the corpus folder: their ids are their
	// paths relative to the current directory, the same as in the folder walk.
	corpus, err := filepath.Abs(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(corpus)
	ingest(t, twice, "ashfever.txt", "brinewright-company.md")
	rep := ingest(t, twice, corpus)
	if rep.Unchanged != 2 || rep.Documents != 15 {
		t.Fatalf("second run: %+v", rep)
	}
	a, b := snapshot(t, once), snapshot(t, twice)
	if !reflect.DeepEqual(a.entities, b.entities) {
		t.Error("entities differ between one run and two runs")
	}
	if !reflect.DeepEqual(a.relations, b.relations) {
		t.Error("relations differ between one run and two runs")
	}
	if !reflect.DeepEqual(a.stats, b.stats) {
		t.Errorf("stats differ: %v vs %v", a.stats, b.stats)
	}
}

func TestIngestSkipsBadInputs(t *testing.T) {
	store := openStore(t, t.TempDir())
	rep := ingest(t, store, badDir, filepath.Join(corpusDir, "harbor-guild.md"))
	if rep.Documents != 2 { // harbor-guild.md and the one good line of broken.jsonl
		t.Errorf("documents = %d, want 2", rep.Documents)
	}
	var sources []string
	for _, p := range rep.Problems {
		sources = append(sources, filepath.Base(p.Source))
	}
	joined := strings.Join(sources, " ")
	for _, name := range []string{"empty.txt", "binary.txt", "latin1.txt", "whitespace.md", "broken.jsonl:2", "broken.jsonl:3"} {
		if !strings.Contains(joined, name) {
			t.Errorf("problem for %s not reported; got %v", name, sources)
		}
	}

	empty := openStore(t, t.TempDir())
	_, err := newIngester(t, empty, nil).Run(context.Background(), []string{filepath.Join(badDir, "empty.txt"), filepath.Join(badDir, "binary.txt")})
	if !errors.Is(err, pipeline.ErrNothingIngested) {
		t.Errorf("only bad inputs: err = %v, want ErrNothingIngested", err)
	}
}

// failingExtractor fails on chunks containing a marker, like a model that keeps erroring.
type failingExtractor struct {
	extract.Offline
	marker string
}

func (f *failingExtractor) Extract(ctx context.Context, text string) (extract.Result, error) {
	if strings.Contains(text, f.marker) {
		return extract.Result{}, errors.New("model unavailable")
	}
	return f.Offline.Extract(ctx, text)
}

func TestIngestFailedDocumentIsRetriedNextRun(t *testing.T) {
	store := openStore(t, t.TempDir())
	in := newIngester(t, store, &failingExtractor{marker: "Ashfever"})
	rep, err := in.Run(context.Background(), []string{corpusDir})
	if err != nil {
		t.Fatal(err)
	}
	failed := rep.Failed
	if failed == 0 || rep.Documents+failed != 17 {
		t.Fatalf("report = %+v", rep)
	}
	// ashfever.txt, the first document, failed: the embedding model is recorded all the same.
	if model, ok, err := store.Meta(context.Background(), graph.MetaEmbeddingModel); err != nil || !ok || model != embedding.OfflineModel {
		t.Errorf("embedding model meta = %q, %v, %v", model, ok, err)
	}
	rep = ingest(t, store, corpusDir)
	if rep.Documents != failed || rep.Unchanged != 17-failed || rep.Failed != 0 {
		t.Errorf("retry run = %+v, want the %d failed documents written", rep, failed)
	}
}

func TestIngestRejectsOtherEmbeddingModel(t *testing.T) {
	store := openStore(t, t.TempDir())
	ingest(t, store, filepath.Join(corpusDir, "harbor-guild.md"))
	in := newIngester(t, store, nil)
	in.Embedder = embedding.NewOffline(32)
	_, err := in.Run(context.Background(), []string{corpusDir})
	if err == nil || !strings.Contains(err.Error(), "embedding model") {
		t.Errorf("err = %v, want an embedding model mismatch", err)
	}
}

// docPausingStore stops the process once the documents it has stored reach after: it writes the
// marker file and sleeps until the parent kills it with SIGKILL.
type docPausingStore struct {
	graph.Store
	after, stored int
	marker        string
}

func (p *docPausingStore) Apply(ctx context.Context, b graph.Batch) error {
	err := p.Store.Apply(ctx, b)
	if err != nil {
		return err
	}
	if p.stored += len(b.Documents); p.stored >= p.after {
		if err := os.WriteFile(p.marker, []byte("stored"), 0o644); err != nil {
			os.Exit(4)
		}
		time.Sleep(time.Minute)
		os.Exit(5) // never killed: the parent has failed already
	}
	return nil
}

// TestIngestResumesAfterKill runs an ingest in a child process, kills it with SIGKILL once a few
// documents are stored, and checks that the store is readable and a re-run completes to the same
// graph as an uninterrupted run (whose transactions group the documents otherwise).
func TestIngestResumesAfterKill(t *testing.T) {
	if dir := os.Getenv("STRATA_TEST_CHILD_INGEST"); dir != "" {
		store, err := embedded.Open(context.Background(), dir, embedded.Options{})
		if err != nil {
			os.Exit(3)
		}
		paused := &docPausingStore{Store: store, after: 3, marker: os.Getenv("STRATA_TEST_CHILD_MARKER")}
		in := newIngester(t, paused, extract.NewOffline())
		in.Options.Concurrency = 1
		in.Options.ChunkBatch = 3 // documents of one chunk, written three to a transaction
		_, _ = in.Run(context.Background(), []string{corpusDir})
		os.Exit(0)
	}
	if testing.Short() {
		t.Skip("spawns a child process")
	}
	dir := t.TempDir()
	marker := filepath.Join(t.TempDir(), "stored")
	cmd := exec.Command(os.Args[0], "-test.run=^TestIngestResumesAfterKill$")
	cmd.Env = append(os.Environ(), "STRATA_TEST_CHILD_INGEST="+dir, "STRATA_TEST_CHILD_MARKER="+marker)
	killAtMarker(t, cmd, marker, "3 stored documents")
	stored := storedDocuments(dir)
	if stored < 3 || stored >= 17 {
		t.Fatalf("child had stored %d documents when killed; want a partial run", stored)
	}

	store := openStore(t, dir) // opens: the killed writer's lock is gone with its process
	rep := ingest(t, store, corpusDir)
	if rep.Unchanged < int(stored) || rep.Unchanged+rep.Documents != 17 {
		t.Errorf("resume run = %+v after %d stored", rep, stored)
	}
	fresh := openStore(t, t.TempDir())
	ingest(t, fresh, corpusDir)
	if a, b := snapshot(t, fresh), snapshot(t, store); !reflect.DeepEqual(a.stats, b.stats) || !reflect.DeepEqual(a.relations, b.relations) {
		t.Error("resumed graph differs from an uninterrupted run")
	}
}

func storedDocuments(dir string) int64 {
	s, err := embedded.Open(context.Background(), dir, embedded.Options{ReadOnly: true})
	if err != nil {
		return 0
	}
	defer s.Close()
	st, err := s.Stats(context.Background())
	if err != nil {
		return 0
	}
	return st.Nodes["Document"]
}

type graphSnapshot struct {
	stats     graph.Stats
	entities  []graph.Entity
	relations map[graph.RelationKey]graph.Relation
}

func snapshot(t testing.TB, s graph.Store) graphSnapshot {
	t.Helper()
	ctx := context.Background()
	st, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	entities, err := s.EntitiesByLayer(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	var keys []graph.RelationKey
	for i := range entities {
		for j := i + 1; j < len(entities); j++ {
			keys = append(keys, graph.NewRelationKey(entities[i].ID, entities[j].ID))
		}
	}
	rels, err := s.Relations(ctx, keys)
	if err != nil {
		t.Fatal(err)
	}
	snap := graphSnapshot{stats: st, entities: entities, relations: map[graph.RelationKey]graph.Relation{}}
	for _, r := range rels {
		snap.relations[r.Key()] = r
	}
	return snap
}

type failingReporter struct{}

func (failingReporter) Reports(context.Context, graph.ReadWriter, []graph.Community) error {
	return errors.New("reporter crashed")
}

// TestIngestFinishesStructureAfterFailure: when a run stops after its documents are stored but
// before communities and reports are done, the next run, with nothing new to ingest, finishes
// them.
func TestIngestFinishesStructureAfterFailure(t *testing.T) {
	store := openStore(t, t.TempDir())
	in := newIngester(t, store, nil)
	in.Reporter = failingReporter{}
	if _, err := in.Run(context.Background(), []string{corpusDir}); err == nil || !strings.Contains(err.Error(), "reporter crashed") {
		t.Fatalf("err = %v", err)
	}
	rep := ingest(t, store, corpusDir)
	if rep.Unchanged != 17 || rep.Communities == 0 {
		t.Fatalf("second run did not finish the structure: %+v", rep)
	}
	communities, err := store.CommunitiesByLevel(context.Background(), -1)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range communities {
		if c.Title == "" {
			t.Errorf("community %s has no report", c.ID)
		}
	}
	if rep := ingest(t, store, corpusDir); rep.Communities != 0 {
		t.Errorf("a third run recomputed a finished structure: %+v", rep)
	}
}

// TestIngestChangedDocumentReplacesItsChunks: a document whose text changed keeps no chunk of the
// old text, in lookups or in search.
func TestIngestChangedDocumentReplacesItsChunks(t *testing.T) {
	t.Chdir(t.TempDir())
	doc := "harbor.txt" // named directly from its folder: its id is its name
	write := func(text string) {
		if err := os.WriteFile(doc, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	store := openStore(t, t.TempDir())
	write("Ilsa Marrow founded the guild at Saltmere. The lamp of Kestrel Point burned whale oil.")
	ingest(t, store, doc)
	write("Ilsa Marrow founded the guild at Saltmere. The lamp of Kestrel Point burned colza oil.")
	rep := ingest(t, store, doc)
	if rep.Changed != 1 || rep.DeletedChunks != 1 || rep.Chunks != 1 {
		t.Fatalf("report = %+v", rep)
	}
	ctx := context.Background()
	chunks, err := store.DocumentChunks(ctx, "harbor.txt")
	if err != nil || len(chunks) != 1 || !strings.Contains(chunks[0].Text, "colza") {
		t.Fatalf("chunks after the change = %+v, %v", chunks, err)
	}
	if hits, err := store.TextSearch(ctx, graph.ChunkText, "whale", 5); err != nil || len(hits) != 0 {
		t.Errorf("the old text is still searchable: %v, %v", hits, err)
	}
	st, err := store.Stats(ctx)
	if err != nil || st.Nodes["Chunk"] != 1 || st.Nodes["Document"] != 1 {
		t.Errorf("stats = %+v, %v", st, err)
	}

	// With small chunks, a paragraph inserted at the top moves the old passages down: they are
	// kept, renumbered, and not extracted again.
	in := newIngester(t, store, nil)
	in.Options.Chunk = chunk.Options{Size: 12, Overlap: 0}
	in.Options.Rebuild = true // the store was chunked with the defaults
	long := "Ilsa Marrow founded the guild at Saltmere in 1102. Edda Fenwick led it from 1124. Maren Quill designed the Kestrel Point Lighthouse."
	write(long)
	if _, err := in.Run(ctx, []string{doc}); err != nil {
		t.Fatal(err)
	}
	before, _ := store.DocumentChunks(ctx, "harbor.txt")
	// A prefix of exactly one window that tokenizes on its own keeps every later window intact.
	prefix := ""
	for n := 1; n < 40 && prefix == ""; n++ {
		p := strings.Repeat("lantern ", n) + "\n\n"
		if in.Tokenizer.Count(p) == 12 && in.Tokenizer.Count(p+long) == 12+in.Tokenizer.Count(long) {
			prefix = p
		}
	}
	if prefix == "" {
		t.Fatal("no 12-token prefix found")
	}
	write(prefix + long)
	rep, err = in.Run(ctx, []string{doc})
	if err != nil {
		t.Fatal(err)
	}
	after, _ := store.DocumentChunks(ctx, "harbor.txt")
	if len(after) != len(before)+1 || rep.DeletedChunks != 0 || rep.Chunks != len(after) {
		t.Fatalf("before %d chunks, after %d, report %+v", len(before), len(after), rep)
	}
	if rep.Entities != 0 {
		t.Errorf("moved chunks were extracted again: %d entity updates", rep.Entities)
	}
	for i, c := range after {
		if c.Seq != i {
			t.Errorf("chunk %d has Seq %d after the insertion", i, c.Seq)
		}
	}
	if got := st.Relationships["NEXT"]; got != 0 {
		t.Errorf("one-chunk document has %d NEXT", got)
	}
}
