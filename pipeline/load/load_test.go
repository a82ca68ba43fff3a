package load

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func collect(t *testing.T, paths ...string) ([]Document, []Problem) {
	t.Helper()
	var docs []Document
	problems, err := Walk(context.Background(), paths, func(d Document) error {
		docs = append(docs, d)
		return nil
	})
	if err != nil {
		t.Fatalf("Walk: %v", err)
	}
	return docs, problems
}

func TestWalkFolder(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "b.md", []byte("# The Harbor\r\nShips dock at Port Avel.\r\n"))
	write(t, dir, "a.txt", []byte("\ufeffLighthouse notes\nThe lamp is lit at dusk."))
	write(t, dir, "sub/c.txt", []byte("A long first line that reads like a sentence and so is not a title."))
	write(t, dir, "image.png", []byte{0x89, 'P', 'N', 'G'})
	write(t, dir, ".hidden/d.txt", []byte("hidden"))
	write(t, dir, "docs.jsonl", []byte(`{"id":"x-1","title":"One","text":"First.","metadata":{"year":1102}}`+"\n\n"+`{"id":"x-2","text":"Second."}`+"\n"))

	docs, problems := collect(t, dir)
	if len(problems) != 0 {
		t.Fatalf("unexpected problems: %v", problems)
	}
	want := []struct{ id, title, text string }{
		{"a.txt", "Lighthouse notes", "Lighthouse notes\nThe lamp is lit at dusk."},
		{"b.md", "The Harbor", "# The Harbor\nShips dock at Port Avel.\n"},
		{"x-1", "One", "First."},
		{"x-2", "x-2", "Second."},
		{"sub/c.txt", "c", "A long first line that reads like a sentence and so is not a title."},
	}
	if len(docs) != len(want) {
		t.Fatalf("got %d docs, want %d: %+v", len(docs), len(want), docs)
	}
	for i, w := range want {
		d := docs[i]
		if d.ID != w.id || d.Title != w.title || d.Text != w.text {
			t.Errorf("doc %d = {%q %q %q}, want {%q %q %q}", i, d.ID, d.Title, d.Text, w.id, w.title, w.text)
		}
	}
	if docs[2].Metadata["year"] != float64(1102) {
		t.Errorf("metadata not kept: %v", docs[2].Metadata)
	}
	if !strings.HasSuffix(docs[3].Source, "docs.jsonl:3") {
		t.Errorf("jsonl source should name the line: %q", docs[3].Source)
	}
}

func TestWalkBadInputs(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		data []byte
		want error
	}{
		{"empty.txt", nil, ErrEmpty},
		{"spaces.md", []byte("  \n\t\n"), ErrEmpty},
		{"binary.txt", []byte("PNG\x00\x01\x02"), ErrBinary},
		{"latin1.txt", []byte("caf\xe9 cr\xe8me"), ErrNotUTF8},
		{"notes.pdf", []byte("%PDF"), ErrUnsupported},
	}
	var paths []string
	for _, tc := range tests {
		paths = append(paths, write(t, dir, tc.name, tc.data))
	}
	paths = append(paths, filepath.Join(dir, "missing.txt"))
	good := write(t, dir, "good.txt", []byte("Port Avel is a harbor."))
	paths = append(paths, good)

	docs, problems := collect(t, paths...)
	if len(docs) != 1 || docs[0].ID != "good.txt" {
		t.Fatalf("want only good.txt loaded, got %+v", docs)
	}
	if len(problems) != len(tests)+1 {
		t.Fatalf("got %d problems, want %d: %v", len(problems), len(tests)+1, problems)
	}
	for i, tc := range tests {
		p := problems[i]
		if !strings.HasSuffix(p.Source, tc.name) || !errors.Is(p.Err, tc.want) {
			t.Errorf("problem %d = %v, want %s: %v", i, p, tc.name, tc.want)
		}
	}
	if last := problems[len(tests)]; !errors.Is(last.Err, os.ErrNotExist) {
		t.Errorf("missing file: got %v", last)
	}
}

func TestWalkJSONLBadLines(t *testing.T) {
	dir := t.TempDir()
	p := write(t, dir, "broken.jsonl", []byte(strings.Join([]string{
		`{"id":"ok-1","title":"Fine","text":"A valid line."}`,
		`this is not json`,
		`{"id":"no-text","title":"Missing"}`,
		`{"title":"no id","text":"x"}`,
		`{"id":"blank","text":"   "}`,
		"",
	}, "\n")))
	docs, problems := collect(t, p)
	if len(docs) != 1 || docs[0].ID != "ok-1" {
		t.Fatalf("docs = %+v", docs)
	}
	wantLines := []string{":2", ":3", ":4", ":5"}
	if len(problems) != len(wantLines) {
		t.Fatalf("problems = %v", problems)
	}
	for i, suffix := range wantLines {
		if !strings.HasSuffix(problems[i].Source, suffix) {
			t.Errorf("problem %d source %q, want suffix %q", i, problems[i].Source, suffix)
		}
	}
	if !strings.Contains(problems[1].Err.Error(), `missing "text"`) {
		t.Errorf("problem should say what is missing: %v", problems[1].Err)
	}
}

func TestWalkStopsOnCallbackError(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "a.txt", []byte("one"))
	write(t, dir, "b.txt", []byte("two"))
	stop := errors.New("stop")
	n := 0
	_, err := Walk(context.Background(), []string{dir}, func(Document) error { n++; return stop })
	if !errors.Is(err, stop) || n != 1 {
		t.Fatalf("err = %v after %d docs, want stop after 1", err, n)
	}
}

func TestWalkCancelled(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "a.txt", []byte("one"))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Walk(ctx, []string{dir}, func(Document) error { return nil })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}
