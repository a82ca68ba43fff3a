package pipeline_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stratarag/strata/internal/embedded"
	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/pipeline"
	"github.com/stratarag/strata/pipeline/arch"
	"github.com/stratarag/strata/pipeline/layers"
	"github.com/stratarag/strata/pipeline/reports"
)

// The structure stages (summary layers, components, communities, reports) must be a pure
// function of the stored graph and the seed: a run killed anywhere among them and resumed, or a
// run that adds a document to an existing store, must leave exactly what a clean run leaves.

// structureIngester is newIngester with the hierarchical index switched on, in clusters small
// enough for the 33 entities of testdata/corpus to get two summary layers, and small report
// batches, so that a kill can fall between two of them.
func structureIngester(t testing.TB, store graph.Store) *pipeline.Ingester {
	in := newIngester(t, store, nil)
	in.LayerSummarizer = layers.Extractive{}
	in.Options.Layers.ClusterSize = 4
	in.Options.Layers.MaxClusterSize = 8
	in.Reporter = &reports.Extractive{Embedder: in.Embedder, Batch: 4}
	in.Options.Arch = arch.DefaultOptions()
	in.Options.Arch.MinNodes = 4
	return in
}

func structureIngest(t testing.TB, store graph.Store, paths ...string) pipeline.Report {
	t.Helper()
	rep, err := structureIngester(t, store).Run(context.Background(), paths)
	if err != nil {
		t.Fatalf("ingest %v: %v", paths, err)
	}
	return rep
}

// Environment of the child process of TestStructureResumesAfterKill.
const (
	structureChildEnv  = "STRATA_TEST_STRUCTURE_DIR"    // the store the child ingests into
	structureKillAtEnv = "STRATA_TEST_STRUCTURE_KILLAT" // the point where it stops (killPoints)
	structureMarkerEnv = "STRATA_TEST_STRUCTURE_MARKER" // the file it creates when it gets there
)

// killPoints are the places between and inside the structure stages where the child stops to be
// killed: when the previous summary layers are removed, after the first summaries are written,
// after the summary layers are built, after components, after communities, after the first batch
// of reports, and after the first layer of attributed communities.
var killPoints = []string{"layers", "summaries", "layers built", "components", "communities", "reports", "arch"}

// updateKillPoints are the kill points an update of the structure passes (it neither removes the
// summary layers nor records them built).
var updateKillPoints = []string{"summaries", "components", "communities", "reports", "arch"}

// layersBuilt is whether the summary layers are complete at a kill point: a run resumed there
// goes on after them.
func layersBuilt(point string) bool {
	return !slices.Contains([]string{"layers", "summaries"}, point)
}

// pausingStore stops the process at one kill point: it creates the marker file and sleeps until
// the parent kills it with SIGKILL.
type pausingStore struct {
	graph.Store
	at, marker string
}

func (p *pausingStore) pause(point string) {
	if point != p.at {
		return
	}
	if err := os.WriteFile(p.marker, []byte(point), 0o644); err != nil {
		os.Exit(4)
	}
	time.Sleep(time.Minute)
	os.Exit(5) // never killed: the parent has failed already
}

func (p *pausingStore) Apply(ctx context.Context, b graph.Batch) error {
	err := p.Store.Apply(ctx, b)
	if err == nil && len(b.DeleteDocuments) > 0 {
		p.pause("delete")
	}
	if err == nil && b.ClearSummaries {
		p.pause("layers")
	}
	if err == nil && len(b.Entities) > 0 && b.Entities[0].Layer > 0 {
		p.pause("summaries")
	}
	if err == nil && b.Meta[graph.MetaStructureStale] == graph.StructureLayersBuilt {
		p.pause("layers built")
	}
	if err == nil && len(b.Communities) > 0 {
		p.pause("reports")
	}
	return err
}

func (p *pausingStore) WriteArchLayer(ctx context.Context, layer int, comms []graph.ArchCommunity, links []graph.ArchLink) error {
	err := p.Store.WriteArchLayer(ctx, layer, comms, links)
	if err == nil && len(comms) > 0 {
		p.pause("arch")
	}
	return err
}

func (p *pausingStore) ComputeComponents(ctx context.Context) (int, error) {
	n, err := p.Store.ComputeComponents(ctx)
	if err == nil {
		p.pause("components")
	}
	return n, err
}

func (p *pausingStore) UpdateComponents(ctx context.Context, changed []string) (int, error) {
	n, err := p.Store.UpdateComponents(ctx, changed)
	if err == nil {
		p.pause("components")
	}
	return n, err
}

func (p *pausingStore) UpdateCommunities(ctx context.Context, lp graph.LeidenParams, changed []string) (graph.CommunityUpdate, error) {
	u, err := p.Store.UpdateCommunities(ctx, lp, changed)
	if err == nil {
		p.pause("communities")
	}
	return u, err
}

func (p *pausingStore) ComputeCommunities(ctx context.Context, lp graph.LeidenParams) ([]graph.Community, error) {
	cs, err := p.Store.ComputeCommunities(ctx, lp)
	if err == nil {
		p.pause("communities")
	}
	return cs, err
}

// TestStructureResumesAfterKill kills (SIGKILL) a child process at every kill point of the
// structure stages, resumes in this process, and compares the whole store with a clean run's:
// entities with summaries (names, descriptions, embeddings, components, degrees), summary
// links, relations, mentions, communities with members and reports, meta.
func TestStructureResumesAfterKill(t *testing.T) {
	if dir := os.Getenv(structureChildEnv); dir != "" {
		store, err := embedded.Open(context.Background(), dir, embedded.Options{})
		if err != nil {
			os.Exit(3)
		}
		ps := &pausingStore{Store: store, at: os.Getenv(structureKillAtEnv), marker: os.Getenv(structureMarkerEnv)}
		_, _ = structureIngester(t, ps).Run(context.Background(), []string{corpusDir})
		os.Exit(0) // the kill point was never reached; the parent reports it
	}
	if testing.Short() {
		t.Skip("spawns child processes")
	}
	cleanDir := t.TempDir()
	clean := openStore(t, cleanDir)
	rep := structureIngest(t, clean, corpusDir)
	if len(rep.Layers) < 2 || len(rep.Arch) < 2 {
		t.Fatalf("the clean run built %d summary layers and %d attributed-community layers, want 2 or more of each for this test to mean something",
			len(rep.Layers), len(rep.Arch))
	}
	clean.Close()
	want := dumpStore(t, cleanDir)

	for _, at := range killPoints {
		t.Run(at, func(t *testing.T) {
			dir := t.TempDir()
			marker := filepath.Join(t.TempDir(), "paused")
			cmd := exec.Command(os.Args[0], "-test.run=^TestStructureResumesAfterKill$")
			cmd.Env = append(os.Environ(), structureChildEnv+"="+dir, structureKillAtEnv+"="+at, structureMarkerEnv+"="+marker)
			killAtMarker(t, cmd, marker, at)

			store := openStore(t, dir)
			wantStale := "true"
			if layersBuilt(at) {
				wantStale = graph.StructureLayersBuilt
			}
			if stale, _, err := store.Meta(context.Background(), graph.MetaStructureStale); err != nil || stale != wantStale {
				t.Fatalf("after the kill at %s, structure.stale = %q, %v; want %q", at, stale, err, wantStale)
			}
			rep := structureIngest(t, store, corpusDir)
			if rep.Unchanged != 17 || rep.Documents != 0 || rep.Communities == 0 || (len(rep.Layers) == 0) != layersBuilt(at) {
				t.Errorf("resume run = %+v; want the structure rebuilt over 17 unchanged documents, the summary layers only if they were not finished", rep)
			}
			store.Close()
			compareDumps(t, dumpStore(t, dir), want)
		})
	}
}

// TestIncrementalIngestEqualsCleanIngest adds one document to an ingested store, which updates the
// structure, and compares the store with one that ingested all documents at once
// (compareWithClean): what is exact must be equal at once, and the structure after
// --restructure, which must not depend on what the runs before left (degrees, components,
// summaries and communities of the smaller graph).
// (Documents added, changed and deleted in any order: TestRandomChangesEqualCleanIngest.)
func TestIncrementalIngestEqualsCleanIngest(t *testing.T) {
	corpus := t.TempDir()
	entries, err := os.ReadDir(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	const added = "vell-council.txt"
	if last := entries[len(entries)-1].Name(); last != added {
		t.Fatalf("the last document of %s is %s, not %s", corpusDir, last, added)
	}
	for _, e := range entries {
		if e.Name() == added {
			continue
		}
		copyFile(t, filepath.Join(corpusDir, e.Name()), filepath.Join(corpus, e.Name()))
	}
	incDir := t.TempDir()
	inc := openStore(t, incDir)
	if rep := structureIngest(t, inc, corpus); len(rep.Layers) == 0 {
		t.Fatalf("first run built no summary layer: %+v", rep)
	}
	copyFile(t, filepath.Join(corpusDir, added), filepath.Join(corpus, added))
	if rep := structureIngest(t, inc, corpus); rep.Documents != 1 || rep.Unchanged != 16 || rep.Structure.Mode != "update" {
		t.Fatalf("incremental run = %+v; want one new document and the structure updated", rep)
	}
	inc.Close()

	compareWithClean(t, incDir, corpus)
}

// compareWithClean compares the whole store in dir (closed by then) with a clean ingest of
// corpus by structureIngester.
//
// What is exact is compared as it is: documents, chunks, mentions, extracted entities and their
// relations with their evidence. The structure an update leaves depends on the order of the
// changes (docs/ARCHITECTURE.md, Updates), so it is compared after an ingest --restructure of
// the store in dir, which must then hold exactly what the clean ingest holds.
func compareWithClean(t *testing.T, dir, corpus string) {
	t.Helper()
	cleanDir := t.TempDir()
	clean := openStore(t, cleanDir)
	structureIngest(t, clean, corpus)
	clean.Close()
	want := dumpStore(t, cleanDir)
	compareDumps(t, exactPart(dumpStore(t, dir)), exactPart(want))
	store := openStore(t, dir)
	in := structureIngester(t, store)
	in.Options.Restructure = true
	if _, err := in.Run(context.Background(), []string{corpus}); err != nil {
		t.Fatalf("ingest --restructure %s: %v", corpus, err)
	}
	store.Close()
	compareDumps(t, dumpStore(t, dir), want)
}

// exactPart is the part of a dump that no order of changes may alter: everything but the
// structure (summary layers, communities, attributed communities, the meta keys that describe
// them) and the component ids of extracted entities (WCC numbers components over the summaries
// too).
func exactPart(d storeDump) storeDump {
	out := storeDump{}
	structural := regexp.MustCompile(` @L[0-9]+ `)
	component := regexp.MustCompile(`component_id=\S+ `)
	for table, rows := range d {
		switch table {
		case "communities", "community_members", "summary_links", "arch_communities", "arch_members", "arch_links":
			continue
		}
		for _, r := range rows {
			switch {
			case table == "meta" && (strings.HasPrefix(r, "key=structure.") || strings.HasPrefix(r, "key=communities.")):
				continue
			case (table == "entities" || table == "relations") && structural.MatchString(r):
				continue
			}
			out[table] = append(out[table], component.ReplaceAllString(r, ""))
		}
	}
	return out
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// storeDump is every row of every table of an embedded store, as sorted text per table.
type storeDump map[string][]string

// dumpStore reads the whole SQLite file of the embedded store in dir (closed by then), leaving out
// only what legitimately differs between two runs over the same documents: write counters
// (generations), row ids (rid, which a rebuilt summary gets anew), ingestion times (of documents
// and of runs, in meta), the tags of the embedded store's query files (in meta), and the
// full-text indexes, which triggers derive from the rows that are
// compared.
func dumpStore(t *testing.T, dir string) storeDump {
	t.Helper()
	path := filepath.Join(dir, "strata.db") // embedded's file name
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	names, err := db.Query(`SELECT name, sql FROM sqlite_schema WHERE type = 'table' ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	var tables, virtual []string
	for names.Next() {
		var name, ddl string
		if err := names.Scan(&name, &ddl); err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(strings.ToUpper(ddl), "CREATE VIRTUAL TABLE") {
			virtual = append(virtual, name)
			continue
		}
		tables = append(tables, name)
	}
	if err := names.Err(); err != nil {
		t.Fatal(err)
	}
	names.Close()
	skip := map[string]bool{"generations": true}
	// Meta values that are times of day: when the last run started and finished.
	timeKeys := map[string]bool{graph.MetaIngestStarted: true, graph.MetaIngestFinished: true}
	dump := storeDump{}
	for _, table := range tables {
		if skip[table] || slices.ContainsFunc(virtual, func(v string) bool { return strings.HasPrefix(table, v+"_") }) {
			continue
		}
		rows, err := db.Query(`SELECT * FROM "` + table + `"`)
		if err != nil {
			t.Fatal(err)
		}
		cols, err := rows.Columns()
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			for i, c := range cols {
				if c == "rid" || (table == "documents" && c == "ingested_at") {
					continue
				}
				// Times of day, and the random tags the embedded store gives its query files
				// (keys "embedded.…"), which are new each time the files are written.
				if key := fmt.Sprint(vals[0]); table == "meta" && c == "value" && (timeKeys[key] || strings.HasPrefix(key, "embedded.")) {
					continue
				}
				if v, ok := vals[i].([]byte); ok {
					fmt.Fprintf(&b, "%s=%x ", c, v)
				} else {
					fmt.Fprintf(&b, "%s=%v ", c, vals[i])
				}
			}
			dump[table] = append(dump[table], b.String())
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
		slices.Sort(dump[table])
	}
	for _, table := range []string{"entities", "summary_links", "communities", "community_members", "arch_communities", "arch_members", "arch_links"} {
		if len(dump[table]) == 0 {
			t.Fatalf("the dump of %s has no %s rows", dir, table)
		}
	}
	return dump
}

// compareDumps reports, per table, the rows only one of the two stores holds.
func compareDumps(t *testing.T, got, want storeDump) {
	t.Helper()
	tables := map[string]bool{}
	for name := range got {
		tables[name] = true
	}
	for name := range want {
		tables[name] = true
	}
	for _, table := range slices.Sorted(func(yield func(string) bool) {
		for name := range tables {
			if !yield(name) {
				return
			}
		}
	}) {
		extra, missing := sortedDiff(got[table], want[table]), sortedDiff(want[table], got[table])
		if len(extra) == 0 && len(missing) == 0 {
			continue
		}
		t.Errorf("table %s: %d rows, want %d; %d unexpected, %d missing, e.g.\n  unexpected: %s\n  missing:    %s",
			table, len(got[table]), len(want[table]), len(extra), len(missing), first(extra), first(missing))
	}
}

// sortedDiff returns the rows of a (sorted) that b (sorted) lacks, counting repeats.
func sortedDiff(a, b []string) []string {
	var out []string
	j := 0
	for _, x := range a {
		for j < len(b) && b[j] < x {
			j++
		}
		if j < len(b) && b[j] == x {
			j++
			continue
		}
		out = append(out, x)
	}
	return out
}

func first(rows []string) string {
	if len(rows) == 0 {
		return "(none)"
	}
	const limit = 300
	if len(rows[0]) > limit {
		return rows[0][:limit] + "…"
	}
	return rows[0]
}

// killAtMarker starts the child, waits until it writes the marker file (it has reached what,
// and pauses there), and kills it with SIGKILL. The marker is made a named pipe first, so the
// child's write reaches the parent as it happens.
func killAtMarker(t *testing.T, cmd *exec.Cmd, marker, what string) {
	t.Helper()
	if err := syscall.Mkfifo(marker, 0o600); err != nil {
		t.Fatal(err)
	}
	reached := make(chan error, 1)
	go func() {
		// Returns once the child has opened the pipe, written and closed it.
		data, err := os.ReadFile(marker)
		if err == nil && len(data) == 0 {
			err = fmt.Errorf("the marker was closed empty")
		}
		reached <- err
	}()
	// unblock ends the read when the child will not write: opening the pipe for writing
	// succeeds at once against the waiting reader, and closing it is the end of file.
	unblock := func() {
		if f, err := os.OpenFile(marker, os.O_WRONLY, 0); err == nil {
			f.Close()
		}
		<-reached
	}
	if err := cmd.Start(); err != nil {
		unblock()
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		unblock()
		t.Fatalf("the child exited (%v) before reaching %s", err, what)
	case <-time.After(2 * time.Minute):
		_ = cmd.Process.Kill()
		<-exited
		unblock()
		t.Fatalf("the child did not reach %s in time", what)
	case err := <-reached:
		if killErr := cmd.Process.Kill(); killErr != nil { // SIGKILL
			t.Fatal(killErr)
		}
		<-exited
		if err != nil {
			t.Fatalf("waiting for the child to reach %s: %v", what, err)
		}
	}
}
