package layers

import (
	"bufio"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
)

// edgeList holds the base relations the aggregation counts, numbered in the order they were
// added. The aggregation reads them in order a few times a layer and looks up the few that
// evidence a kept pair.
type edgeList interface {
	// each calls fn with every edge and its number, in order.
	each(fn func(i int32, e baseEdge)) error
	// at returns edge i. It is not safe for concurrent use.
	at(i int32) (baseEdge, error)
	// close lets the edges go.
	close() error
}

// memEdges is an edgeList in memory.
type memEdges []baseEdge

func (m memEdges) each(fn func(i int32, e baseEdge)) error {
	for i, e := range m {
		fn(int32(i), e)
	}
	return nil
}

func (m memEdges) at(i int32) (baseEdge, error) { return m[i], nil }

func (memEdges) close() error { return nil }

// spillEdges is the number of base relations from which the aggregation keeps them in a
// temporary file rather than in memory: 16 bytes each, the relations of one huge document
// (millions) would be the largest thing the layers stage holds (76 MB for a 50 MiB document of
// 1.7 million entities). Read back in order, from the page cache, a pass over them costs tens of
// milliseconds.
const spillEdges = 1 << 20

// edgeRecord is the size of an edge in a fileEdges file: s and t as uint32, the weight's bits
// as uint64, little-endian.
const edgeRecord = 16

// fileEdges is an edgeList in a temporary file, removed when closed (at once where the system
// allows an open file to be removed, so that a killed run leaves nothing behind).
type fileEdges struct {
	f    *os.File
	n    int
	buf  []byte           // each's read buffer
	rec  [edgeRecord]byte // at's
	path string           // removed by close when it could not be removed at once
}

// edgeWriter writes the edges of a fileEdges in order.
type edgeWriter struct {
	fe  *fileEdges
	w   *bufio.Writer
	rec [edgeRecord]byte
}

// newEdgeFile creates an empty fileEdges in dir ("" for os.TempDir) and its writer.
func newEdgeFile(dir string) (*edgeWriter, error) {
	f, err := os.CreateTemp(dir, "strata-layer-edges-*")
	if err != nil {
		return nil, fmt.Errorf("temporary file for the relations of layer 0: %w", err)
	}
	fe := &fileEdges{f: f}
	if os.Remove(f.Name()) != nil {
		fe.path = f.Name()
	}
	return &edgeWriter{fe: fe, w: bufio.NewWriterSize(f, 1<<16)}, nil
}

func (w *edgeWriter) add(e baseEdge) error {
	binary.LittleEndian.PutUint32(w.rec[0:], uint32(e.s))
	binary.LittleEndian.PutUint32(w.rec[4:], uint32(e.t))
	binary.LittleEndian.PutUint64(w.rec[8:], math.Float64bits(e.weight))
	if _, err := w.w.Write(w.rec[:]); err != nil {
		return fmt.Errorf("write the relations of layer 0 to %s: %w", w.fe.f.Name(), err)
	}
	w.fe.n++
	return nil
}

// done flushes the file and returns the list; on error the file is closed and removed.
func (w *edgeWriter) done() (*fileEdges, error) {
	if err := w.w.Flush(); err != nil {
		return nil, errors.Join(fmt.Errorf("write the relations of layer 0 to %s: %w", w.fe.f.Name(), err), w.fe.close())
	}
	return w.fe, nil
}

func decodeEdge(b []byte) baseEdge {
	return baseEdge{
		s:      int32(binary.LittleEndian.Uint32(b[0:])),
		t:      int32(binary.LittleEndian.Uint32(b[4:])),
		weight: math.Float64frombits(binary.LittleEndian.Uint64(b[8:])),
	}
}

func (fe *fileEdges) each(fn func(i int32, e baseEdge)) error {
	if fe.buf == nil {
		fe.buf = make([]byte, 4096*edgeRecord)
	}
	for i := 0; i < fe.n; {
		k := min(fe.n-i, len(fe.buf)/edgeRecord)
		b := fe.buf[:k*edgeRecord]
		if _, err := fe.f.ReadAt(b, int64(i)*edgeRecord); err != nil {
			return fmt.Errorf("read the relations of layer 0 from %s: %w", fe.f.Name(), err)
		}
		for ; len(b) > 0; b = b[edgeRecord:] {
			fn(int32(i), decodeEdge(b))
			i++
		}
	}
	return nil
}

func (fe *fileEdges) at(i int32) (baseEdge, error) {
	if i < 0 || int(i) >= fe.n {
		return baseEdge{}, fmt.Errorf("relation %d of layer 0: out of range [0, %d)", i, fe.n)
	}
	if n, err := fe.f.ReadAt(fe.rec[:], int64(i)*edgeRecord); n < edgeRecord {
		return baseEdge{}, fmt.Errorf("read the relations of layer 0 from %s: %w", fe.f.Name(), cmp.Or(err, io.ErrUnexpectedEOF))
	}
	return decodeEdge(fe.rec[:]), nil
}

func (fe *fileEdges) close() error {
	err := fe.f.Close()
	if fe.path != "" {
		err = errors.Join(err, os.Remove(fe.path))
	}
	return err
}
