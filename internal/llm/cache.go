package llm

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Cache is a content-addressed store of API responses on disk: one file per key, in directories
// sharded by the first two hex digits of the key. Writes go to a temporary file that is renamed
// into place, so a crash never leaves a half-written entry under a real key, and concurrent
// writers of one key (who write identical content) cannot corrupt it.
type Cache struct {
	dir string
}

// OpenCache opens a cache rooted at dir. The directory is created by the first entry written,
// so that a client that only reads (a dry run) leaves no trace; a path that exists and is not a
// directory is an error.
func OpenCache(dir string) (*Cache, error) {
	if dir == "" {
		return nil, errors.New("open LLM cache: empty directory")
	}
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return nil, fmt.Errorf("open LLM cache %s: not a directory", dir)
	}
	return &Cache{dir: dir}, nil
}

// Key hashes the parts of a request into a cache key. Parts are length-prefixed so that no two
// different part lists hash the same input.
func Key(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		fmt.Fprintf(h, "%d:", len(p))
		h.Write([]byte(p))
	}
	return hex.EncodeToString(h.Sum(nil))
}

func (c *Cache) path(kind, key string) string {
	return filepath.Join(c.dir, kind, key[:2], key)
}

// Get returns the entry stored under kind and key.
func (c *Cache) Get(kind, key string) ([]byte, bool, error) {
	b, err := os.ReadFile(c.path(kind, key))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("read LLM cache entry %s/%s: %w", kind, key, err)
	}
	return b, true, nil
}

// Put stores data under kind and key, atomically.
func (c *Cache) Put(kind, key string, data []byte) error {
	p := c.path(kind, key)
	dir := filepath.Dir(p)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write LLM cache entry: %w", err)
	}
	f, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return fmt.Errorf("write LLM cache entry: %w", err)
	}
	tmp := f.Name()
	_, werr := f.Write(data)
	cerr := f.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp, p)
	}
	if werr != nil {
		os.Remove(tmp)
		return fmt.Errorf("write LLM cache entry %s/%s: %w", kind, key, werr)
	}
	return nil
}
