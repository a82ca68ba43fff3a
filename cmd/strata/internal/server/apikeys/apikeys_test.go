package apikeys

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const (
	keyA = "0123456789abcdef0123"
	keyB = "fedcba9876543210fedc"
)

func TestParse(t *testing.T) {
	file := "# team keys\n\n" + keyA + " docs, wiki\n  " + keyB + "\t*\n"
	set, err := Parse(strings.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	if set.Len() != 2 {
		t.Fatalf("%d keys, want 2", set.Len())
	}
	for _, tc := range []struct {
		token     string
		line      int
		allowed   []string
		forbidden []string
	}{
		{keyA, 3, []string{"docs", "wiki"}, []string{"default", "doc", "*", ""}},
		{keyB, 4, []string{"docs", "wiki", "default", "anything"}, nil},
	} {
		k := set.Lookup(tc.token)
		if k == nil {
			t.Fatalf("key of line %d not found", tc.line)
		}
		if k.Line != tc.line || k.ID != ID(tc.token) || len(k.ID) != 8 || strings.Contains(tc.token, k.ID) {
			t.Errorf("key %+v: want line %d and an 8-digit ID that is not part of the key", k, tc.line)
		}
		for _, w := range tc.allowed {
			if !k.Allows(w) {
				t.Errorf("key of line %d does not allow %q", tc.line, w)
			}
		}
		for _, w := range tc.forbidden {
			if k.Allows(w) {
				t.Errorf("key of line %d allows %q", tc.line, w)
			}
		}
	}
	if got := set.Lookup(keyA).Workspaces(); !slices.Equal(got, []string{"docs", "wiki"}) {
		t.Errorf("workspaces %v", got)
	}
	for _, wrong := range []string{"", keyA[:len(keyA)-1], keyA + "0", strings.ToUpper(keyA), keyA + " docs"} {
		if k := set.Lookup(wrong); k != nil {
			t.Errorf("Lookup(%q) = key of line %d", wrong, k.Line)
		}
	}
}

func TestParseMalformed(t *testing.T) {
	for _, tc := range []struct {
		name, file string
		line       int    // 0: an error of the whole file
		msg        string // part of the message
	}{
		{"key alone", "# c\n" + keyA + "\n", 2, "a key without workspaces"},
		{"key and comma", keyA + ",\n", 1, "a key without workspaces"},
		{"short key", "short docs\n", 1, "a key of 5 characters, want at least 16"},
		{"control character", keyA + "\x01 docs\n", 1, "printable ASCII"},
		{"non-ASCII", keyA + "é docs\n", 1, "printable ASCII"},
		{"bad workspace", keyA + " docs wi/ki\n", 1, `workspace "wi/ki"`},
		{"long workspace", keyA + " " + strings.Repeat("w", 65) + "\n", 1, "at most 64"},
		{"separators only", keyA + " docs\n , ,\n", 2, "separators without a key"},
		{"duplicate", keyA + " docs\n" + keyB + " *\n" + keyA + " wiki\n", 3, "the key of line 1 again"},
		{"long line", keyA + " " + strings.Repeat("w,", MaxLineLen) + "\n", 1, "longer than 4096 bytes"},
		{"empty", "", 0, "no key in the file"},
		{"comments only", "# nothing\n\n", 0, "no key in the file"},
	} {
		_, err := Parse(strings.NewReader(tc.file))
		if err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		if !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: %v, want it to say %q", tc.name, err, tc.msg)
		}
		if le, ok := err.(*LineError); (tc.line == 0) == ok || ok && le.Line != tc.line {
			t.Errorf("%s: %v, want line %d", tc.name, err, tc.line)
		}
		if strings.Contains(err.Error(), keyA) || strings.Contains(err.Error(), keyA[:MinKeyLen]) {
			t.Errorf("%s: the message holds the key: %v", tc.name, err)
		}
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("keys", keyA+" *\n", 0o600)
	if set, err := Load(good); err != nil || set.Lookup(keyA) == nil {
		t.Errorf("Load(%s): %v", good, err)
	}
	for _, tc := range []struct{ path, msg string }{
		{write("open", keyA+" *\n", 0o666), "writable by every user (mode -rw-rw-rw-)"},
		{write("bad", "# keys\n"+keyA+"\n", 0o600), "bad: line 2: a key without workspaces"},
		{filepath.Join(dir, "missing"), "no such file"},
		{dir, "not a regular file"},
	} {
		_, err := Load(tc.path)
		if err == nil || !strings.Contains(err.Error(), tc.msg) || !strings.Contains(err.Error(), "keys file") {
			t.Errorf("Load(%s): %v, want an error saying %q", tc.path, err, tc.msg)
		}
	}
	if os.Geteuid() != 0 { // root reads any file
		unreadable := write("unreadable", keyA+" *\n", 0o200)
		if _, err := Load(unreadable); err == nil || !strings.Contains(err.Error(), "permission denied") {
			t.Errorf("Load of an unreadable file: %v", err)
		}
	}
}
