// Package apikeys reads strata serve's keys file and checks the keys requests carry. The file
// holds one key per line, followed by the workspaces it may use:
//
//	# comment
//	3f9c1e0a7b5d42c8e6f1a9b0c7d2e4f6 docs, wiki
//	a9d0e7c6b5f4e3d2c1b0a9f8e7d6c5b4 *
//
// Workspaces are separated by spaces or commas; `*` grants every workspace. Blank lines and
// lines starting with # are skipped. Keys are compared in constant time, and only their short
// hash (ID) is meant for logs.
package apikeys

import (
	"bufio"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// MinKeyLen is the shortest key accepted: a shorter one can be guessed.
const MinKeyLen = 16

// MaxLineLen bounds a line of the file.
const MaxLineLen = 4096

// All is the workspace pattern that grants every workspace.
const All = "*"

// Key is one key of the file, without its text.
type Key struct {
	// ID is a short hash of the key, to name it in logs and metrics.
	ID string
	// Line is the key's line in the file.
	Line       int
	all        bool
	workspaces []string
	sum        [sha256.Size]byte
}

// Allows tells whether the key may use workspace.
func (k *Key) Allows(workspace string) bool {
	_, found := slices.BinarySearch(k.workspaces, workspace)
	return k.all || found
}

// Workspaces is what the key grants: its workspaces, sorted, or ["*"].
func (k *Key) Workspaces() []string {
	if k.all {
		return []string{All}
	}
	return slices.Clone(k.workspaces)
}

// Set is the keys of a file.
type Set struct {
	keys []*Key
}

// Len is the number of keys.
func (s *Set) Len() int { return len(s.keys) }

// Keys returns the keys in file order.
func (s *Set) Keys() []*Key { return slices.Clone(s.keys) }

// Lookup returns the key whose text is token, or nil. It compares token with every key, in
// constant time each, so the time taken says nothing about which key, or how much of one,
// matched.
func (s *Set) Lookup(token string) *Key {
	sum := sha256.Sum256([]byte(token))
	var found *Key
	for _, k := range s.keys {
		if subtle.ConstantTimeCompare(sum[:], k.sum[:]) == 1 {
			found = k
		}
	}
	return found
}

// ID is the short hash a key is logged by: the first 8 hex digits of its SHA-256.
func ID(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:4])
}

// LineError is a malformed line of a keys file.
type LineError struct {
	Line int
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }
func (e *LineError) Unwrap() error { return e.Err }

// ValidWorkspace tells whether name can name a workspace: letters, digits, '-' and '_', at
// most 64 of them.
func ValidWorkspace(name string) bool {
	if name == "" || len(name) > 64 {
		return false
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

// Parse reads a keys file. A malformed line is a *LineError naming it; the message never holds
// a key's text.
func Parse(r io.Reader) (*Set, error) {
	set := &Set{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 512), MaxLineLen)
	seen := map[[sha256.Size]byte]int{}
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, err := parseLine(line)
		if err != nil {
			return nil, &LineError{Line: n, Err: err}
		}
		if first, dup := seen[k.sum]; dup {
			return nil, &LineError{Line: n, Err: fmt.Errorf("the key of line %d again", first)}
		}
		seen[k.sum] = n
		k.Line = n
		set.keys = append(set.keys, k)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, &LineError{Line: n + 1, Err: fmt.Errorf("longer than %d bytes", MaxLineLen)}
		}
		return nil, err
	}
	if len(set.keys) == 0 {
		return nil, errors.New("no key in the file")
	}
	return set, nil
}

func parseLine(line string) (*Key, error) {
	fields := strings.FieldsFunc(line, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' })
	if len(fields) == 0 {
		return nil, errors.New("separators without a key")
	}
	token := fields[0]
	if len(token) < MinKeyLen {
		return nil, fmt.Errorf("a key of %d characters, want at least %d", len(token), MinKeyLen)
	}
	for _, r := range token {
		if r <= ' ' || r > '~' {
			return nil, errors.New("a key with a character other than printable ASCII")
		}
	}
	if len(fields) < 2 {
		return nil, errors.New("a key without workspaces (follow it with workspace names, or * for all)")
	}
	k := &Key{ID: ID(token), sum: sha256.Sum256([]byte(token))}
	for _, w := range fields[1:] {
		switch {
		case w == All:
			k.all = true
		case !ValidWorkspace(w):
			return nil, fmt.Errorf("workspace %q: want letters, digits, - and _ (at most 64), or *", w)
		default:
			k.workspaces = append(k.workspaces, w)
		}
	}
	if k.all {
		k.workspaces = nil
	}
	slices.Sort(k.workspaces)
	k.workspaces = slices.Compact(k.workspaces)
	return k, nil
}

// Load reads the keys file at path, refusing one that is not a regular file or that any user
// may write (anyone could then grant themselves a key).
func Load(path string) (*Set, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("keys file: %w", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("keys file %s: %w", path, err)
	}
	switch {
	case !info.Mode().IsRegular():
		return nil, fmt.Errorf("keys file %s: not a regular file", path)
	case info.Mode().Perm()&0o002 != 0:
		return nil, fmt.Errorf("keys file %s: writable by every user (mode %s); chmod o-w it", path, info.Mode().Perm())
	}
	set, err := Parse(f)
	if err != nil {
		return nil, fmt.Errorf("keys file %s: %w", path, err)
	}
	return set, nil
}
