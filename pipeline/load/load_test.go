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

// realDir is dir with symbolic links resolved (a temporary folder may lie behind one).
func realDir(t *testing.T, dir string) string {
	t.Helper()
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	return real
}

func TestWalkFolder(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "b.md", []byte("# The Harbor\r\nShips dock at Port Avel.\r\n"))
	write(t, dir, "a.txt", []byte("\ufeffLighthouse notes\nThe lamp is lit at dusk."))
	write(t, dir, "sub/c.txt", []byte("A long first line that reads like a sentence and so is not a title."))
	write(t, dir, "image.png", []byte{0x89, 'P', 'N', 'G'})
	write(t, dir, ".hidden/d.txt", []byte("hidden"))
	write(t, dir, "docs.jsonl", []byte(`{"id":"x-1","title":"One","text":"First.","metadata":{"year":1102},"other":[1]}`+"\n\n"+`{"id":"x-2","text":"Second."}`+"\n"))

	docs, problems := collect(t, dir)
	// The entries left out by rule are reported, not dropped unseen.
	if len(problems) != 2 || !errors.Is(problems[0].Err, ErrHidden) || !strings.HasSuffix(problems[0].Source, ".hidden") ||
		!errors.Is(problems[1].Err, ErrUnsupported) || !strings.HasSuffix(problems[1].Source, "image.png") {
		t.Fatalf("problems = %v, want the hidden folder and image.png", problems)
	}
	for _, p := range problems {
		if !p.Ignored {
			t.Errorf("%v is not marked as left out by rule", p)
		}
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
	if want := filepath.Join(realDir(t, dir), "docs.jsonl"); docs[3].Source != want+":3" || docs[3].File != want || docs[3].Line != 3 {
		t.Errorf("jsonl record source = %q (%q line %d), want the absolute path with the line", docs[3].Source, docs[3].File, docs[3].Line)
	}
	if want := filepath.Join(realDir(t, dir), "sub", "c.txt"); docs[4].Source != want || docs[4].File != want || docs[4].Line != 0 {
		t.Errorf("text file source = %q (%q line %d), want %q", docs[4].Source, docs[4].File, docs[4].Line, want)
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
		{"notes.rtf", []byte("{\\rtf1}"), ErrUnsupported},
	}
	var paths []string
	for _, tc := range tests {
		paths = append(paths, write(t, dir, tc.name, tc.data))
	}
	paths = append(paths, filepath.Join(dir, "missing.txt"))
	good := write(t, dir, "good.txt", []byte("Port Avel is a harbor."))
	paths = append(paths, good)

	docs, problems := collect(t, paths...)
	// A file named directly outside the current directory is identified by its absolute path.
	if len(docs) != 1 || docs[0].ID != filepath.ToSlash(good) {
		t.Fatalf("want only good.txt loaded as %s, got %+v", good, docs)
	}
	if len(problems) != len(tests)+1 {
		t.Fatalf("got %d problems, want %d: %v", len(problems), len(tests)+1, problems)
	}
	for i, tc := range tests {
		p := problems[i]
		if !strings.HasSuffix(p.Source, tc.name) || !errors.Is(p.Err, tc.want) || p.Ignored {
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
		`{"id":"nul\u0000id","text":"x"}`,
		`{"id":"tab\tid","text":"x"}`,
		"",
	}, "\n")))
	docs, problems := collect(t, p)
	if len(docs) != 1 || docs[0].ID != "ok-1" {
		t.Fatalf("docs = %+v", docs)
	}
	wantLines := []string{":2", ":3", ":4", ":5", ":6", ":7"}
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
	if err := problems[4].Err; !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), "U+0000") {
		t.Errorf("an id holding NUL: %v, want a malformed record naming the character", err)
	}
}

// TestWalkControlFileName: a file whose name holds a control character is refused, named.
func TestWalkControlFileName(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "ferry\x01log.txt", []byte("Ferries leave at dawn."))
	write(t, dir, "tides.txt", []byte("High water at noon."))
	docs, problems := collect(t, dir)
	if len(docs) != 1 || docs[0].ID != "tides.txt" {
		t.Errorf("docs = %+v, want tides.txt alone", docs)
	}
	if len(problems) != 1 || !errors.Is(problems[0].Err, ErrControlName) {
		t.Errorf("problems = %v, want the control-character name refused", problems)
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

// TestWalkIDs: the id rule. Files in a folder are identified relative to that folder, files named
// directly relative to the current directory however the path is spelled, and one file has one
// Source however it is reached (a symbolic link named directly included).
func TestWalkIDs(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "a/notes.txt", []byte("Notes of a."))
	write(t, dir, "b/notes.txt", []byte("Notes of b."))
	write(t, dir, "b/deep/x.md", []byte("# X\nDeep."))
	write(t, dir, ".hidden.txt", []byte("Hidden, named directly."))
	if err := os.Symlink(filepath.Join(dir, "a", "notes.txt"), filepath.Join(dir, "b", "link.txt")); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	real := realDir(t, dir)

	tests := []struct {
		name    string
		paths   []string
		ids     []string
		sources []string // relative to real
	}{
		{"files named directly", []string{"a/notes.txt", "b/notes.txt"}, []string{"a/notes.txt", "b/notes.txt"}, []string{"a/notes.txt", "b/notes.txt"}},
		{"spellings of one path", []string{"./a/notes.txt", filepath.Join(dir, "a", "notes.txt"), "b/../a/notes.txt"},
			[]string{"a/notes.txt", "a/notes.txt", "a/notes.txt"}, []string{"a/notes.txt", "a/notes.txt", "a/notes.txt"}},
		{"folder", []string{"b"}, []string{"deep/x.md", "notes.txt"}, []string{"b/deep/x.md", "b/notes.txt"}},
		{"current folder", []string{"."}, []string{"a/notes.txt", "b/deep/x.md", "b/notes.txt"}, []string{"a/notes.txt", "b/deep/x.md", "b/notes.txt"}},
		{"symbolic link named directly", []string{"b/link.txt"}, []string{"b/link.txt"}, []string{"a/notes.txt"}},
		{"hidden file named directly", []string{".hidden.txt"}, []string{".hidden.txt"}, []string{".hidden.txt"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			docs, _ := collect(t, tc.paths...)
			if len(docs) != len(tc.ids) {
				t.Fatalf("got %d documents, want %d: %+v", len(docs), len(tc.ids), docs)
			}
			for i, d := range docs {
				if src := filepath.Join(real, filepath.FromSlash(tc.sources[i])); d.ID != tc.ids[i] || d.Source != src {
					t.Errorf("document %d = id %q source %q, want %q %q", i, d.ID, d.Source, tc.ids[i], src)
				}
			}
		})
	}

	// In a folder walk the link is reported, not followed.
	_, problems := collect(t, "b")
	if len(problems) != 1 || !errors.Is(problems[0].Err, ErrSymlink) || !problems[0].Ignored || !strings.HasSuffix(problems[0].Source, "link.txt") {
		t.Errorf("problems = %v, want the symbolic link reported", problems)
	}
}

// TestReadFileSizes: readFile returns a file's bytes exactly whatever its size relative to the
// buffer it sizes from Stat (one byte more than the file): empty, small, around 512, large.
func TestReadFileSizes(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []int{0, 1, 511, 512, 513, 1 << 20} {
		path := filepath.Join(dir, "f.txt")
		want := strings.Repeat("abcdefg\n", n/8+1)[:n]
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := readFile(path, MaxFileSize)
		if err != nil || string(got) != want {
			t.Errorf("size %d: read %d bytes, %v", n, len(got), err)
		}
	}
}
