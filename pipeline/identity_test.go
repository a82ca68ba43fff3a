package pipeline_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/pipeline"
	"github.com/stratarag/strata/pipeline/chunk"
	"github.com/stratarag/strata/pipeline/extract"
	"github.com/stratarag/strata/pipeline/layers"
	"github.com/stratarag/strata/pipeline/load"
)

// writeFiles writes name → text under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// storedDocs returns id → source of the stored documents among ids, and the stored count.
func storedDocs(t *testing.T, s graph.Store, ids ...string) (map[string]string, int64) {
	t.Helper()
	ctx := context.Background()
	docs, err := s.Documents(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, d := range docs {
		out[d.ID] = d.Source
	}
	st, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return out, st.Nodes["Document"]
}

func run(t *testing.T, in *pipeline.Ingester, paths ...string) (pipeline.Report, error) {
	t.Helper()
	return in.Run(context.Background(), paths)
}

var notes = map[string]string{
	"a/notes.txt": "Ilsa Marrow founded the Harbor Guild at Saltmere.",
	"b/notes.txt": "Maren Quill designed the Kestrel Point Lighthouse.",
}

// TestIngestFilesWithOneNameKeepTheirOwnIDs: `ingest a/notes.txt b/notes.txt` stores both, and a
// later `ingest b/notes.txt` or `ingest a` (the folder) finds its file already stored.
func TestIngestFilesWithOneNameKeepTheirOwnIDs(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, notes)
	t.Chdir(dir)
	store := openStore(t, t.TempDir())

	rep := ingest(t, store, "a/notes.txt", "b/notes.txt")
	docs, n := storedDocs(t, store, "a/notes.txt", "b/notes.txt")
	if rep.Documents != 2 || n != 2 || len(docs) != 2 {
		t.Fatalf("stored %d documents (%v), report %+v; want a/notes.txt and b/notes.txt", n, docs, rep)
	}
	real, _ := filepath.EvalSymlinks(dir)
	if docs["a/notes.txt"] != filepath.Join(real, "a", "notes.txt") {
		t.Errorf("source of a/notes.txt = %q, want its absolute path", docs["a/notes.txt"])
	}

	for _, args := range [][]string{{"b/notes.txt"}, {"./b/notes.txt"}, {"a"}, {filepath.Join(dir, "a")}} {
		rep := ingest(t, store, args...)
		if _, n := storedDocs(t, store); rep.Unchanged != 1 || rep.Documents != 0 || n != 2 {
			t.Errorf("ingest %v after both: report %+v, %d stored; want the file found unchanged", args, rep, n)
		}
	}
}

// TestIngestRefusesDuplicateIDs: two inputs of one run with one id are an error naming both, and
// nothing is written.
func TestIngestRefusesDuplicateIDs(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, notes)
	writeFiles(t, dir, map[string]string{
		"records.jsonl": `{"id": "r1", "text": "Edda Fenwick led the guild."}` + "\n" + `{"id": "r1", "text": "Osric Daventh was rector."}` + "\n",
	})
	t.Chdir(dir)
	tests := []struct {
		name  string
		paths []string
		want  []string // in the message
	}{
		{"two folders", []string{"a", "b"}, []string{`"notes.txt"`, filepath.Join("a", "notes.txt"), filepath.Join("b", "notes.txt")}},
		{"two records of one file", []string{"records.jsonl"}, []string{`"r1"`, "records.jsonl:1", "records.jsonl:2"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			store := openStore(t, t.TempDir())
			_, err := run(t, newIngester(t, store, nil), tc.paths...)
			if !errors.Is(err, pipeline.ErrDuplicateID) {
				t.Fatalf("err = %v, want ErrDuplicateID", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("message does not name %q: %v", w, err)
				}
			}
			if _, n := storedDocs(t, store); n != 0 {
				t.Errorf("a refused run stored %d documents", n)
			}
		})
	}

	// The same file reached twice is one input, not a clash; so is a record repeated whole.
	store := openStore(t, t.TempDir())
	rep := ingest(t, store, "a", "a/notes.txt", filepath.Join(dir, "a"))
	if rep.Documents != 1 || rep.Duplicates != 2 {
		t.Errorf("one file through three paths: %+v", rep)
	}
	record := `{"id": "r2", "title": "T", "text": "Edda Fenwick led the guild.", "metadata": {"year": 1124}}` + "\n"
	writeFiles(t, dir, map[string]string{"copies.jsonl": record + record})
	if rep := ingest(t, store, "copies.jsonl"); rep.Documents != 1 || rep.Duplicates != 1 {
		t.Errorf("a record copied twice: %+v", rep)
	}
}

// TestIngestNeverReplacesAnotherSourceSilently: an id stored for one file is not taken by another
// file without Options.Replace, and once replaced the first file does not take it back silently.
func TestIngestNeverReplacesAnotherSourceSilently(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, notes)
	t.Chdir(dir)
	store := openStore(t, t.TempDir())
	ingest(t, store, "a") // a/notes.txt is "notes.txt"
	before := snapshot(t, store)

	_, err := run(t, newIngester(t, store, nil), "b")
	if !errors.Is(err, pipeline.ErrIDTaken) || !strings.Contains(err.Error(), filepath.Join("a", "notes.txt")) ||
		!strings.Contains(err.Error(), filepath.Join("b", "notes.txt")) || !strings.Contains(err.Error(), "--replace") {
		t.Fatalf("err = %v, want ErrIDTaken naming both files and --replace", err)
	}
	if after := snapshot(t, store); !reflect.DeepEqual(before, after) {
		t.Error("a refused run changed the store")
	}

	in := newIngester(t, store, nil)
	in.Options.Replace = true
	if rep, err := run(t, in, "b"); err != nil || rep.Changed != 1 {
		t.Fatalf("--replace: %+v, %v", rep, err)
	}
	chunks, err := store.DocumentChunks(context.Background(), "notes.txt")
	if err != nil || len(chunks) != 1 || !strings.Contains(chunks[0].Text, "Maren Quill") {
		t.Fatalf("notes.txt after --replace = %+v, %v", chunks, err)
	}
	if _, err := run(t, newIngester(t, store, nil), "a"); !errors.Is(err, pipeline.ErrIDTaken) {
		t.Errorf("the replaced file took its id back: err = %v", err)
	}
}

// TestIngestCorpusThenParent: ingesting a folder and then its parent stores each file once.
func TestIngestCorpusThenParent(t *testing.T) {
	store := openStore(t, t.TempDir())
	ingest(t, store, corpusDir)
	rep := ingest(t, store, filepath.Dir(corpusDir))
	_, n := storedDocs(t, store)
	// testdata adds README.md and the one good record of bad/broken.jsonl; questions.jsonl has
	// no "text", and the rest of bad/ is bad inputs.
	if rep.Unchanged != 17 || rep.Documents != 2 || n != 19 {
		t.Errorf("corpus then testdata: report %+v, %d documents stored; want the 17 unchanged and 2 added", rep, n)
	}
}

// TestIngestReportsEntriesLeftOut: hidden entries, symbolic links and unsupported files in a
// folder are listed as ignored, not dropped unseen, and not counted as skipped inputs.
func TestIngestReportsEntriesLeftOut(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"notes.txt": notes["a/notes.txt"], ".draft.txt": "Hidden.", ".git/config": "x", "logo.png": "PNG",
	})
	if err := os.Symlink(filepath.Join(dir, "notes.txt"), filepath.Join(dir, "link.txt")); err != nil {
		t.Fatal(err)
	}
	rep := ingest(t, openStore(t, t.TempDir()), dir)
	if len(rep.Problems) != 0 {
		t.Errorf("entries left out by rule reported as skipped inputs: %v", rep.Problems)
	}
	got := map[string]error{}
	for _, p := range rep.Ignored {
		got[filepath.Base(p.Source)] = p.Err
	}
	want := map[string]error{".draft.txt": load.ErrHidden, ".git": load.ErrHidden, "link.txt": load.ErrSymlink, "logo.png": load.ErrUnsupported}
	if len(got) != len(want) || rep.Documents != 1 {
		t.Fatalf("problems %v, %d documents; want %v and notes.txt", got, rep.Documents, want)
	}
	for name, err := range want {
		if !errors.Is(got[name], err) {
			t.Errorf("%s: %v, want %v", name, got[name], err)
		}
	}
}

// TestIngestKeepsRepeatedWindows: identical windows of one document are all stored, numbered
// without gaps.
func TestIngestKeepsRepeatedWindows(t *testing.T) {
	dir := t.TempDir()
	paragraph := "Ilsa Marrow founded the Harbor Guild at Saltmere in 1102.\n\n"
	writeFiles(t, dir, map[string]string{"repeats.txt": strings.Repeat(paragraph, 6)})
	store := openStore(t, t.TempDir())
	in := newIngester(t, store, nil)
	in.Options.Chunk = chunk.Options{Size: in.Tokenizer.Count(paragraph), Overlap: 0}
	rep, err := run(t, in, dir)
	if err != nil {
		t.Fatal(err)
	}
	chunks, err := store.DocumentChunks(context.Background(), "repeats.txt")
	if err != nil {
		t.Fatal(err)
	}
	if rep.Chunks != 6 || len(chunks) != 6 {
		t.Fatalf("%d chunks written, %d stored; want 6 and 6", rep.Chunks, len(chunks))
	}
	for i, c := range chunks {
		if c.Seq != i || c.Text != chunks[0].Text {
			t.Errorf("chunk %d has Seq %d and text %q; want six identical windows", i, c.Seq, c.Text)
		}
	}
	if rep, err := run(t, in, dir); err != nil || rep.Unchanged != 1 || rep.Chunks != 0 {
		t.Errorf("second run: %+v, %v", rep, err)
	}
}

// chunkIDs returns every stored chunk id of the documents, per document.
func chunkIDs(t *testing.T, s graph.Store, ids []string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, id := range ids {
		chunks, err := s.DocumentChunks(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range chunks {
			out[id] = append(out[id], c.ID)
		}
	}
	return out
}

func corpusIDs(t *testing.T) []string {
	t.Helper()
	docs, _, _, err := pipeline.LoadDocuments(context.Background(), []string{corpusDir}, newIngester(t, nil, nil).Log)
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, len(docs))
	for i, d := range docs {
		ids[i] = d.ID
	}
	return ids
}

// TestIngestOtherChunkSettings: a run with other chunk settings is refused without Rebuild and
// leaves the store as it was; with Rebuild it re-chunks to what a fresh store holds, and a later
// run with the same settings finds everything unchanged.
func TestIngestOtherChunkSettings(t *testing.T) {
	small := chunk.Options{Size: 200, Overlap: 20}
	fresh := openStore(t, t.TempDir())
	in := newIngester(t, fresh, nil)
	in.Options.Chunk = small
	if _, err := run(t, in, corpusDir); err != nil {
		t.Fatal(err)
	}
	ids := corpusIDs(t)
	want := chunkIDs(t, fresh, ids)

	store := openStore(t, t.TempDir())
	ingest(t, store, corpusDir)
	before := snapshot(t, store)
	in = newIngester(t, store, nil)
	in.Options.Chunk = small
	_, err := run(t, in, corpusDir)
	if !errors.Is(err, pipeline.ErrSettingsChanged) || !strings.Contains(err.Error(), "--rebuild") ||
		!strings.Contains(err.Error(), "--chunk-size 1200 --chunk-overlap 100") {
		t.Fatalf("err = %v, want a refusal that names --rebuild and the stored settings", err)
	}
	if after := snapshot(t, store); !reflect.DeepEqual(before, after) {
		t.Error("a refused run changed the store")
	}

	// A rebuild of part of the corpus leaves the re-chunk pending; the next run finishes it.
	in.Options.Rebuild = true
	first := filepath.Join(corpusDir, "ashfever.txt")
	if _, err := run(t, in, first); err != nil {
		t.Fatal(err)
	}
	if v, _, _ := store.Meta(context.Background(), graph.MetaChunkingPending); v != "true" {
		t.Errorf("after a partial re-chunk, pending = %q", v)
	}
	in.Options.Rebuild = false
	rep, err := run(t, in, corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Unchanged == 17 || rep.Rechunked == 0 || rep.DeletedChunks == 0 {
		t.Errorf("re-chunk run reports %+v; the old chunks would be kept", rep)
	}
	if got := chunkIDs(t, store, ids); !reflect.DeepEqual(got, want) {
		t.Errorf("re-chunked store holds other chunks than a fresh one:\n got %v\nwant %v", got, want)
	}
	if v, _, _ := store.Meta(context.Background(), graph.MetaChunkingPending); v != "false" {
		t.Errorf("after the full re-chunk, pending = %q", v)
	}
	if v, _, _ := store.Meta(context.Background(), graph.MetaChunking); v != "cl100k_base size=200 overlap=20" {
		t.Errorf("recorded chunking = %q", v)
	}
	if rep, err := run(t, in, corpusDir); err != nil || rep.Unchanged != 17 || rep.Chunks != 0 {
		t.Errorf("a run with the new settings again: %+v, %v", rep, err)
	}
}

// renamedExtractor is the offline extractor under another name, as another model or mode is.
type renamedExtractor struct{ extract.Offline }

func (renamedExtractor) Name() string { return "offline-renamed" }

// TestIngestOtherExtractorRefused: documents of two extractors are not mixed in one store.
func TestIngestOtherExtractorRefused(t *testing.T) {
	store := openStore(t, t.TempDir())
	ingest(t, store, filepath.Join(corpusDir, "harbor-guild.md"))
	_, err := run(t, newIngester(t, store, &renamedExtractor{}), corpusDir)
	if !errors.Is(err, pipeline.ErrSettingsChanged) || !strings.Contains(err.Error(), "offline-renamed") {
		t.Errorf("err = %v, want a refusal naming the extractors", err)
	}
}

// TestIngestOtherLayersOrSeedRebuildsStructure: --layers 0 after an index removes its summaries,
// and another seed recomputes the structure, though no document changed.
func TestIngestOtherLayersOrSeedRebuildsStructure(t *testing.T) {
	ctx := context.Background()
	store := openStore(t, t.TempDir())
	withLayers := func(maxLayers int, seed int64) *pipeline.Ingester {
		in := newIngester(t, store, nil)
		in.LayerSummarizer = layers.Extractive{}
		in.Options.Layers.MaxLayers, in.Options.Seed = maxLayers, seed
		return in
	}
	summaries := func() int64 {
		st, err := store.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return st.Nodes["Summary"]
	}
	if _, err := run(t, withLayers(2, 42), corpusDir); err != nil {
		t.Fatal(err)
	}
	if summaries() == 0 {
		t.Fatal("no summaries built")
	}
	rep, err := run(t, withLayers(0, 42), corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Unchanged != 17 || rep.Communities == 0 {
		t.Errorf("--layers 0 did not recompute the structure: %+v", rep)
	}
	if n := summaries(); n != 0 {
		t.Errorf("%d summaries left after --layers 0", n)
	}
	if rep, err := run(t, withLayers(0, 42), corpusDir); err != nil || rep.Communities != 0 {
		t.Errorf("the same settings again recomputed the structure: %+v, %v", rep, err)
	}
	if rep, err := run(t, withLayers(0, 7), corpusDir); err != nil || rep.Communities == 0 {
		t.Errorf("another seed did not recompute the structure: %+v, %v", rep, err)
	}
	if v, _, _ := store.Meta(ctx, graph.MetaSeed); v != "7" {
		t.Errorf("recorded seed = %q", v)
	}
}

// TestIngestUpdatesTitleOfUnchangedText: a JSON Lines record whose title (naming the same
// subject) or metadata changed but not its text is updated without being extracted again.
func TestIngestUpdatesTitleOfUnchangedText(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "records.jsonl")
	writeFiles(t, dir, map[string]string{"records.jsonl": `{"id": "r1", "title": "Edda Fenwick", "text": "Edda Fenwick led the guild."}` + "\n"})
	store := openStore(t, t.TempDir())
	ingest(t, store, file)
	writeFiles(t, dir, map[string]string{"records.jsonl": "\n" + `{"id": "r1", "title": "Edda Fenwick (guild master)", "text": "Edda Fenwick led the guild.", "metadata": {"year": 1124}}` + "\n"})
	rep := ingest(t, store, file)
	if rep.Unchanged != 1 || rep.Relabeled != 1 || rep.Entities != 0 {
		t.Errorf("report %+v", rep)
	}
	docs, err := store.Documents(context.Background(), []string{"r1"})
	if err != nil || len(docs) != 1 || docs[0].Title != "Edda Fenwick (guild master)" || docs[0].Metadata != `{"year":1124}` || !strings.HasSuffix(docs[0].Source, "records.jsonl:2") {
		t.Errorf("stored %+v, %v", docs, err)
	}
}

// TestIngestTitleNamingAnotherSubject: extraction looks for the subject the title names in the
// text (extract.NameSubject), so a record whose new title names another subject is extracted
// again, and the store holds what a clean ingest of the new record builds, whichever title came
// first.
func TestIngestTitleNamingAnotherSubject(t *testing.T) {
	const text = "The Harbor Guild of Port Avel was led by Edda Fenwick. Fenwick Shipyards built its boats.\n\nThe guild met in winter."
	record := func(title string) string {
		return `{"id": "r1", "title": "` + title + `", "text": "` + strings.ReplaceAll(text, "\n", `\n`) + `"}` + "\n"
	}
	for _, tc := range []struct{ from, to string }{
		{"Fenwick", "Harbor Guild"},
		{"Harbor Guild", "Notes"},
		{"Notes", "Edda Fenwick"},
	} {
		t.Run(tc.from+" to "+tc.to, func(t *testing.T) {
			// With the test corpus around it, so that every table of the store has rows.
			corpus := t.TempDir()
			entries, err := os.ReadDir(corpusDir)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range entries {
				copyFile(t, filepath.Join(corpusDir, e.Name()), filepath.Join(corpus, e.Name()))
			}
			writeFiles(t, corpus, map[string]string{"records.jsonl": record(tc.from)})
			incDir := t.TempDir()
			inc := openStore(t, incDir)
			structureIngest(t, inc, corpus)
			writeFiles(t, corpus, map[string]string{"records.jsonl": record(tc.to)})
			if rep := structureIngest(t, inc, corpus); rep.Relabeled != 0 || rep.Changed != 1 {
				t.Errorf("report %+v; want the record extracted again", rep)
			}
			inc.Close()
			compareWithClean(t, incDir, corpus)
		})
	}
}

// TestIngestMigratesOlderStore: a store written before sources were absolute and settings were
// recorded is checked once, without extracting anything again, and then behaves as a new one.
func TestIngestMigratesOlderStore(t *testing.T) {
	ctx := context.Background()
	store := openStore(t, t.TempDir())
	ingest(t, store, corpusDir)
	ids := corpusIDs(t)
	docs, err := store.Documents(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	// What an older strata wrote: the path as walked, and none of the newer meta keys ("" reads
	// as absent).
	old := graph.Batch{Meta: map[string]string{graph.MetaChunking: "", graph.MetaLayers: "", graph.MetaSeed: ""}}
	for _, d := range docs {
		old.Meta[graph.MetaSourcePrefix+d.Source] = ""
		if strings.Contains(d.Source, ".jsonl:") { // FILE:LINE
			d.Source = filepath.Join(corpusDir, filepath.Base(d.Source))
		} else {
			d.Source = filepath.Join(corpusDir, filepath.FromSlash(d.ID))
		}
		old.Documents = append(old.Documents, d)
	}
	if err := store.Apply(ctx, old); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, store)

	rep := ingest(t, store, corpusDir)
	if rep.Unchanged != 17 || rep.Chunks != 0 || rep.Entities != 0 || rep.Relabeled == 0 {
		t.Errorf("first run on the older store: %+v", rep)
	}
	if after := snapshot(t, store); !reflect.DeepEqual(before.entities, after.entities) || !reflect.DeepEqual(before.relations, after.relations) {
		t.Error("checking the older store changed its graph")
	}
	if v, _, _ := store.Meta(ctx, graph.MetaChunkingPending); v != "false" {
		t.Errorf("pending = %q after every document was checked", v)
	}
	if rep := ingest(t, store, filepath.Dir(corpusDir)); rep.Unchanged != 17 {
		t.Errorf("the parent folder after the migration: %+v", rep)
	}
}
