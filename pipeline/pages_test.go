package pipeline_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stratarag/strata/pipeline/chunk"
	"github.com/stratarag/strata/pipeline/load"
)

// TestIngestPDFChunkPages ingests the three-page report PDF in small overlapping chunks and
// checks every stored chunk's pages against where the fixture's pages begin in its text: page
// 2 with "return in spring" (the end of a paragraph that runs on from page 1), page 3 with
// "Ferries". A chunk's pages are those of its first and last non-space bytes.
func TestIngestPDFChunkPages(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile(filepath.Join("load", "testdata", "inputs", "good", "report.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "report.pdf"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("Ferries to Saltmere leave from the north pier."), 0o644); err != nil {
		t.Fatal(err)
	}
	var text string
	if _, err := load.Walk(context.Background(), []string{filepath.Join(dir, "report.pdf")}, func(d load.Document) error {
		text = d.Text
		return nil
	}); err != nil || text == "" {
		t.Fatalf("load report.pdf: %v", err)
	}
	starts := []int{0, strings.Index(text, "return in spring"), strings.Index(text, "Ferries")}
	if starts[1] < 0 || starts[2] < 0 {
		t.Fatalf("the fixture's text changed: %q", text)
	}
	pageOf := func(at int) int {
		p := 0
		for i, s := range starts {
			if at >= s {
				p = i + 1
			}
		}
		return p
	}

	store := openStore(t, t.TempDir())
	in := newIngester(t, store, nil)
	in.Options.Chunk = chunk.Options{Size: 12, Overlap: 4}
	if _, err := in.Run(context.Background(), []string{dir}); err != nil {
		t.Fatal(err)
	}

	chunks, err := store.DocumentChunks(t.Context(), "report.pdf")
	if err != nil || len(chunks) < 6 {
		t.Fatalf("DocumentChunks(report.pdf) = %d chunks, %v", len(chunks), err)
	}
	from := 0
	seen := map[[2]int]bool{}
	for _, c := range chunks {
		at := strings.Index(text[from:], c.Text)
		if at < 0 {
			t.Fatalf("chunk %d %q is not in the text after byte %d", c.Seq, c.Text, from)
		}
		start := from + at
		from = start + 1
		trimmed := strings.TrimSpace(c.Text)
		first := start + strings.Index(c.Text, trimmed)
		want := [2]int{pageOf(first), pageOf(first + len(trimmed) - 1)}
		if got := [2]int{c.FirstPage, c.LastPage}; got != want {
			t.Errorf("chunk %d %q: pages %v, want %v", c.Seq, c.Text, got, want)
		}
		seen[want] = true
	}
	for _, span := range [][2]int{{1, 1}, {1, 2}, {2, 2}, {2, 3}, {3, 3}} {
		if !seen[span] {
			t.Errorf("no chunk on pages %v: the test does not cover it (%v)", span, seen)
		}
	}

	notes, err := store.DocumentChunks(t.Context(), "notes.txt")
	if err != nil || len(notes) != 1 || notes[0].FirstPage != 0 || notes[0].LastPage != 0 {
		t.Errorf("chunks of a text file = %+v, %v; want one without pages", notes, err)
	}
}

// TestIngestReportsUnmappedGlyphs: a PDF glyph whose font maps it to no character is left out
// of the text and counted in the run's report, by source.
func TestIngestReportsUnmappedGlyphs(t *testing.T) {
	content := "BT /F1 10 Tf 10 100 Td (Harbor\\001 log of Port Avel) Tj ET"
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 200] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding << /Differences [1 /g1] >> >>",
	}
	var b strings.Builder
	b.WriteString("%PDF-1.4\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	path := filepath.Join(t.TempDir(), "log.pdf")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}

	in := newIngester(t, openStore(t, t.TempDir()), nil)
	rep, err := in.Run(context.Background(), []string{path})
	if err != nil {
		t.Fatal(err)
	}
	if got := rep.Unmapped[load.SourcePath(path)]; got != 1 || len(rep.Unmapped) != 1 {
		t.Errorf("Unmapped = %v, want 1 glyph for %s", rep.Unmapped, path)
	}
	if rep.Documents != 1 {
		t.Errorf("documents = %d, want the PDF loaded", rep.Documents)
	}
}
