package embedded

import (
	"database/sql"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stratarag/strata/internal/graph"
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
		if got, err = r.entityGraph(t.Context(), tx); err != nil {
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
	var st vectorFileState
	if err := r.read(t.Context(), "graph file state", func(tx *sql.Tx) (err error) {
		st, err = readFileState(t.Context(), tx, genEntityGraph, graphFileMetaKey)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return checkGraphFile(filepath.Join(dir, graphFileName), st) == nil
}

func sameGraph(a, b *entityGraph) bool {
	return a.gen == b.gen && a.ids.text == b.ids.text && slices.Equal(a.ids.ends, b.ids.ends) &&
		slices.Equal(a.related, b.related) && slices.Equal(a.edges.U, b.edges.U) &&
		slices.Equal(a.edges.V, b.edges.V) && slices.Equal(a.edges.W, b.edges.W) && a.nRelated == b.nRelated
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
	if !sameGraph(got, want) || got.ids.len() != 200 || got.nRelated != 199 || got.edges.Len() != 200 {
		t.Fatalf("file graph: %d nodes, %d edges (%d RELATED); SQLite's differs or the sizes are wrong", got.ids.len(), got.edges.Len(), got.nRelated)
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
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			h, err := decodeVectorHeader(graphFileMagic, data, int64(len(data)))
			if err != nil {
				t.Fatal(err)
			}
			got, _ := readerGraph(t, dir)
			spoilt := *got
			ids := make([]string, got.ids.len())
			for i := range ids {
				ids[i] = got.ids.at(i)
			}
			ids[0], ids[1] = ids[1], ids[0]
			if spoilt.ids, err = newIDList(ids); err != nil {
				t.Fatal(err)
			}
			tmp, err := writeGraphTempFile(dir, &spoilt, h.tag)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(tmp, path); err != nil {
				t.Fatal(err)
			}
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
