package embedded

import (
	"database/sql"
	"encoding/binary"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/vectorindex"
)

// readerGraph returns the entity graph a fresh reader of dir gets, and the one SQLite holds.
func readerGraph(t *testing.T, dir string) (got, want *entityGraph) {
	t.Helper()
	r, err := Open(t.Context(), dir, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	err = r.read(t.Context(), "graphs", func(tx *sql.Tx) (err error) {
		if got, err = r.entityGraph(t.Context(), tx, true); err != nil {
			return err
		}
		if want, err = loadEntityGraph(t.Context(), tx); err != nil {
			return err
		}
		want.gen, err = generation(t.Context(), tx, genEntityGraph)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return got, want
}

// graphFileAccepted reports whether the writer's streamed check accepts dir's entity graph file.
func graphFileAccepted(t *testing.T, dir string) bool {
	t.Helper()
	r, err := Open(t.Context(), dir, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var st vectorindex.Label
	if err := r.read(t.Context(), "graph file state", func(tx *sql.Tx) (err error) {
		st, err = readFileState(t.Context(), tx, genEntityGraph, graphFileMetaKey)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return checkGraphFile(filepath.Join(dir, graphFileName), st) == nil
}

// sameGraph reports whether a and b are the same graph of the same generation, bit for bit.
func sameGraph(a, b *entityGraph) bool {
	if a.gen != b.gen || !a.ids.Equal(b.ids) ||
		a.g.NumNodes() != b.g.NumNodes() || a.g.TotalWeight() != b.g.TotalWeight() {
		return false
	}
	for u := range a.g.NumNodes() {
		at, aw := a.g.Neighbors(u)
		bt, bw := b.g.Neighbors(u)
		if !slices.Equal(at, bt) || !slices.Equal(aw, bw) || a.g.SelfLoop(u) != b.g.SelfLoop(u) || a.g.Strength(u) != b.g.Strength(u) {
			return false
		}
	}
	return true
}

// swapFirstIDs rewrites the entity graph file at path with its first two ids swapped, whole
// (its checksum taken again) and labelled as before.
func swapFirstIDs(t *testing.T, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	h, err := vectorindex.DecodeHeader(graphFileMagic, data, int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	body := data[vectorindex.HeaderSize:]
	var ids [2][]byte
	rest := body
	for i := range ids {
		n, k := binary.Uvarint(rest)
		ids[i], rest = rest[:k+int(n)], rest[k+int(n):]
	}
	swapped := slices.Concat(ids[1], ids[0], rest)
	h.BodyCRC = crc32.Checksum(swapped, vectorindex.Castagnoli)
	if err := os.WriteFile(path, slices.Concat(h.Encode(graphFileMagic), swapped), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestEntityGraphFile(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(t.Context(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b := benchBatch(rand.New(rand.NewPCG(1, 2)), "d", 20, 200, 8)
	b.SummaryLinks = []graph.SummaryLink{{Member: "d-e1", Summary: "d-e2", Weight: 2}}
	if err := s.Apply(t.Context(), b); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	got, want := readerGraph(t, dir)
	if !got.fromFile {
		t.Fatal("a fresh reader read SQLite although the entity graph file is current")
	}
	// 199 relations of weight 1 and a link of weight 2.
	if !sameGraph(got, want) || got.ids.Len() != 200 || got.g.NumNodes() != 200 || got.g.TotalWeight() != 201 {
		t.Fatalf("file graph: %d nodes, total weight %v; SQLite's differs or the sizes are wrong", got.g.NumNodes(), got.g.TotalWeight())
	}

	if !graphFileAccepted(t, dir) {
		t.Fatal("the writer's check refuses a current, whole entity graph file")
	}

	path := filepath.Join(dir, graphFileName)
	for _, tc := range []struct {
		name  string
		spoil func(t *testing.T)
	}{
		{"flipped edge byte", func(t *testing.T) { flipByte(t, path, -5) }},
		{"ids out of order", func(t *testing.T) {
			// A whole file of the current generation and tag, whose first two ids are swapped:
			// nodes are found by binary search, so the reader must refuse it.
			swapFirstIDs(t, path)
		}},
		{"truncated", func(t *testing.T) { os.Truncate(path, 100) }},
		{"generation moved on", func(t *testing.T) {
			s, err := Open(t.Context(), dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Apply(t.Context(), graph.Batch{Relations: []graph.Relation{{Source: "d-e3", Target: "d-e4", Weight: 1}}}); err != nil {
				t.Fatal(err)
			}
			s.opened = false // as if killed before Close
			s.Close()
		}},
		{"relation to a missing entity", func(t *testing.T) {
			// Apply refuses such a row; written behind its back, it is not an edge, and the
			// next writer must count the edges rather than the rows.
			s, err := Open(t.Context(), dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.db.ExecContext(t.Context(), `INSERT INTO relations VALUES ('d-e5', 'no-such-entity', '', 1, '[]')`); err != nil {
				t.Fatal(err)
			}
			if err := s.Apply(t.Context(), graph.Batch{Relations: []graph.Relation{{Source: "d-e6", Target: "d-e7", Weight: 1}}}); err != nil {
				t.Fatal(err)
			}
			s.opened = false
			s.Close()
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.spoil(t)
			if graphFileAccepted(t, dir) {
				t.Error("the writer's check accepts the spoilt file")
			}
			got, want := readerGraph(t, dir)
			if got.fromFile || !sameGraph(got, want) {
				t.Errorf("spoilt file: fromFile %v, same as SQLite %v", got.fromFile, sameGraph(got, want))
			}
			s, err := Open(t.Context(), dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if !graphFileAccepted(t, dir) {
				t.Error("the writer's check refuses the file the next writer wrote")
			}
			if got, want := readerGraph(t, dir); !got.fromFile || !sameGraph(got, want) {
				t.Errorf("after the next writer: fromFile %v, same as SQLite %v", got.fromFile, sameGraph(got, want))
			}
		})
	}
}
