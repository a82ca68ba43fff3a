package prompts

import (
	"testing"
	"testing/fstest"
)

// TestDigest: the digest follows the task's files by path and content, and says "unknown" when
// a pattern finds nothing.
func TestDigest(t *testing.T) {
	base := fstest.MapFS{"templates/a.tmpl": {Data: []byte("a")}, "templates/b.tmpl": {Data: []byte("b")}}
	want := Digest(base, "templates/*.tmpl")
	if len(want) != 8 || want == "unknown" {
		t.Fatalf("digest %q", want)
	}
	for _, tc := range []struct {
		name string
		fsys fstest.MapFS
		same bool
	}{
		{"same files", fstest.MapFS{"templates/b.tmpl": {Data: []byte("b")}, "templates/a.tmpl": {Data: []byte("a")}}, true},
		{"content changed", fstest.MapFS{"templates/a.tmpl": {Data: []byte("A")}, "templates/b.tmpl": {Data: []byte("b")}}, false},
		{"renamed", fstest.MapFS{"templates/c.tmpl": {Data: []byte("a")}, "templates/b.tmpl": {Data: []byte("b")}}, false},
		{"content moved between files", fstest.MapFS{"templates/a.tmpl": {Data: []byte("ab")}, "templates/b.tmpl": {Data: []byte("")}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Digest(tc.fsys, "templates/*.tmpl"); (got == want) != tc.same {
				t.Errorf("digest %q, base %q, want same: %v", got, want, tc.same)
			}
		})
	}
	if got := Digest(base, "templates/*.tmpl", "missing/*.tmpl"); got != "unknown" {
		t.Errorf("missing pattern: %q", got)
	}
}
