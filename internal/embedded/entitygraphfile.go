package embedded

import (
	"bufio"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"

	"github.com/stratarag/strata/internal/graphalgo"
	"github.com/stratarag/strata/internal/idlist"
	"github.com/stratarag/strata/internal/vectorindex"
)

// The entity graph file holds the entity graph (entitygraph.go) so that a fresh query process
// does not read every entity, relation and summary link row to find bridge paths (ShortestPaths):
// at 20 k entities and 50 k relations that read takes 0.3 to 0.8 s, the file a few milliseconds.
// It is written, labelled and checked exactly like a vector file (see vectorfile.go), under the
// genEntityGraph generation and graphFileMetaKey.
//
// Layout (little-endian): the 64-byte header of a vector file with magic graphFileMagic, no
// dimensions, count = number of nodes and the ids-block length = length of the body; then the
// body: per node, a uvarint length and the id's bytes, in node order (by id); a uvarint count of
// RELATED edges and one of all edges; then per edge, uint32 u, uint32 v and the float64 weight,
// RELATED edges first.

const (
	graphFileMagic   = "STRATAEG"
	graphFileName    = "strata-entity-graph.bin"
	graphFileMetaKey = "embedded.graph_file"
	graphEdgeSize    = 16
)

// errEdgeCount: fewer of the rows than the body announced were edges.
var errEdgeCount = errors.New("entity graph: not every row is an edge")

// writeEntityGraph writes the body of the entity graph file of tx's snapshot to w, a piece at a
// time, and returns its number of nodes, its length and its CRC-32C. The edges are streamed from
// the store, so that writing the file of a huge graph holds its ids and no more. The body starts
// with the edge counts: by default the tables' row counts, as Apply refuses relationships to
// missing entities and every row is an edge; with countRows false the edges are counted by
// reading them, a pass more. When the rows the body holds are not as many as it says, the
// error is errEdgeCount, and the caller writes it again counting.
func writeEntityGraph(ctx context.Context, tx *sql.Tx, w io.Writer, countRows bool) (nodes int, n int64, crc uint32, err error) {
	ids, err := readEntityIDs(ctx, tx)
	if err != nil {
		return 0, 0, 0, err
	}
	index := idlist.NewIndex(ids)
	related := entityEdges(ctx, tx, index, relatedEdgesQuery)
	links := entityEdges(ctx, tx, index, linkEdgesQuery)
	count := func(src graphalgo.EdgeSource) (int, error) {
		k := 0
		err := src(func(int32, int32, float64) error { k++; return nil })
		return k, err
	}
	var nRelated, nLinks int
	if countRows {
		err = tx.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM relations), (SELECT count(*) FROM summary_links)`).Scan(&nRelated, &nLinks)
	} else if nRelated, err = count(related); err == nil {
		nLinks, err = count(links)
	}
	if err != nil {
		return 0, 0, 0, fmt.Errorf("count entity graph edges: %w", err)
	}
	buf := make([]byte, 0, 1<<16)
	flush := func() error {
		crc = crc32.Update(crc, vectorindex.Castagnoli, buf)
		n += int64(len(buf))
		_, err := w.Write(buf)
		buf = buf[:0]
		return err
	}
	for i := range ids.Len() {
		id := ids.At(i)
		buf = binary.AppendUvarint(buf, uint64(len(id)))
		buf = append(buf, id...)
		if len(buf) >= 1<<15 {
			if err := flush(); err != nil {
				return 0, n, crc, err
			}
		}
	}
	buf = binary.AppendUvarint(buf, uint64(nRelated))
	buf = binary.AppendUvarint(buf, uint64(nRelated+nLinks))
	written := 0
	for _, src := range []graphalgo.EdgeSource{related, links} { // RELATED first
		err := src(func(u, v int32, w float64) error {
			buf = binary.LittleEndian.AppendUint32(buf, uint32(u))
			buf = binary.LittleEndian.AppendUint32(buf, uint32(v))
			buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(w))
			written++
			if len(buf) >= 1<<15 {
				return flush()
			}
			return nil
		})
		if err != nil {
			return 0, n, crc, err
		}
	}
	if written != nRelated+nLinks {
		return 0, n, crc, fmt.Errorf("%w: %d counted, %d read", errEdgeCount, nRelated+nLinks, written)
	}
	return ids.Len(), n, crc, flush()
}

// readGraphFile reads the entity graph file at path when it is whole and carries exactly the
// generation and tag of want; any other file is an error saying why it was refused. The file is
// read in pieces, its edges twice (once to size the adjacency, once to fill it), so that reading
// the graph of a huge document holds its ids and its adjacency and not the file besides (a
// 137 MB file at 50 MiB). The checksum is taken over the body as the first pass reads it, and
// checked before the second.
func readGraphFile(path string, want vectorindex.Label) (*entityGraph, error) {
	f, h, size, err := vectorindex.OpenChecked(path, graphFileMagic, "entity graph file", want)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	crc := crc32.New(vectorindex.Castagnoli)
	r := &countingReader{r: bufio.NewReaderSize(io.TeeReader(f, crc), 1<<16)}
	// The ids are packed into one string (idlist.List): one allocation, not one per node.
	var b idlist.Builder
	b.Grow(int(h.Count), 0)
	nEdges, err := readGraphIDs(r, h.Count, size-vectorindex.HeaderSize, b.Add)
	if err != nil {
		return nil, err
	}
	ids := b.List()
	edgesAt := vectorindex.HeaderSize + r.n
	var edge [graphEdgeSize]byte
	passes := 0
	g, err := graphalgo.NewGraphFromSource(ids.Len(), func(yield func(u, v int32, w float64) error) error {
		var er io.Reader = r // the first pass goes on through the checksum
		if passes++; passes > 1 {
			if _, err := f.Seek(edgesAt, io.SeekStart); err != nil {
				return err
			}
			er = bufio.NewReaderSize(f, 1<<16)
		}
		for range nEdges {
			if _, err := io.ReadFull(er, edge[:]); err != nil {
				return fmt.Errorf("read: %w", err)
			}
			u, v := int32(binary.LittleEndian.Uint32(edge[:])), int32(binary.LittleEndian.Uint32(edge[4:]))
			if err := yield(u, v, math.Float64frombits(binary.LittleEndian.Uint64(edge[8:]))); err != nil {
				return err
			}
		}
		if passes == 1 && crc.Sum32() != h.BodyCRC {
			return errors.New("checksum mismatch")
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("entity graph file: %w", err)
	}
	return &entityGraph{gen: h.Gen, ids: ids, g: g, fromFile: true}, nil
}

// readGraphIDs reads the ids of an entity graph file's body of body bytes from r, checking that
// they are in order, and hands each to add (the bytes are valid until the next); then the edge
// counts, checking that the edges take the rest of the body. It returns the number of edges.
func readGraphIDs(r *countingReader, count int, body int64, add func(id []byte) error) (nEdges uint64, err error) {
	malformed := errors.New("entity graph file body is malformed")
	var prev, id []byte
	for i := range count {
		n, err := binary.ReadUvarint(r)
		if err != nil || n > uint64(body-r.n) {
			return 0, malformed
		}
		id = slices.Grow(id[:0], int(n))[:n]
		if _, err := io.ReadFull(r, id); err != nil {
			return 0, malformed
		}
		if i > 0 && string(prev) >= string(id) {
			return 0, errors.New("entity graph file ids are not in order")
		}
		if err := add(id); err != nil {
			return 0, err
		}
		prev, id = id, prev
	}
	nRelated, err1 := binary.ReadUvarint(r)
	nEdges, err2 := binary.ReadUvarint(r)
	if err1 != nil || err2 != nil || nRelated > nEdges || nEdges > uint64(body) ||
		uint64(body-r.n) != nEdges*graphEdgeSize {
		return 0, malformed
	}
	return nEdges, nil
}

// writeGraphFile brings the entity graph file up to date (the writer only).
func (s *Store) writeGraphFile(ctx context.Context) error {
	path := filepath.Join(s.absDir, graphFileName)
	var tag [vectorindex.TagSize]byte
	if _, err := rand.Read(tag[:]); err != nil {
		return err
	}
	var st vectorindex.Label
	var tmp string
	err := s.read(ctx, "write entity graph file", func(tx *sql.Tx) (err error) {
		if st, err = readFileState(ctx, tx, genEntityGraph, graphFileMetaKey); err != nil {
			return err
		}
		// Checked as a reader would check it, so that a file of the current generation that
		// a reader would refuse (its ids out of order) is rewritten; but streamed, without
		// building a graph that a large store holds in hundreds of megabytes.
		if checkGraphFile(path, st) == nil {
			return nil // current and whole
		}
		tmp, err = writeGraphTempFile(ctx, tx, s.absDir, st.Gen, tag)
		return err
	})
	if err != nil || tmp == "" {
		return err
	}
	defer os.Remove(tmp) // a no-op once renamed
	return s.installFile(ctx, genEntityGraph, graphFileMetaKey, st.Gen, tag, tmp, path)
}

// checkGraphFile returns nil when readGraphFile would accept the file at path, reading it once
// in pieces: the header (openChecked), then the ids in order and the edge counts, the checksum
// taken over the body as it is read.
func checkGraphFile(path string, want vectorindex.Label) error {
	f, h, size, err := vectorindex.OpenChecked(path, graphFileMagic, "entity graph file", want)
	if err != nil {
		return err
	}
	defer f.Close()
	crc := crc32.New(vectorindex.Castagnoli)
	r := &countingReader{r: bufio.NewReaderSize(io.TeeReader(f, crc), 1<<16)}
	if _, err := readGraphIDs(r, h.Count, size-vectorindex.HeaderSize, func([]byte) error { return nil }); err != nil {
		return err
	}
	if _, err := io.Copy(io.Discard, r); err != nil {
		return fmt.Errorf("read entity graph file: %w", err)
	}
	if crc.Sum32() != h.BodyCRC {
		return errors.New("entity graph file checksum mismatch")
	}
	return nil
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r *bufio.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	k, err := c.r.Read(p)
	c.n += int64(k)
	return k, err
}

func (c *countingReader) ReadByte() (byte, error) {
	b, err := c.r.ReadByte()
	if err == nil {
		c.n++
	}
	return b, err
}

// writeGraphTempFile writes the entity graph file of tx's snapshot, of generation gen and
// labelled tag, to a new temporary file in dir (vectorindex.CreateTemp) and returns its name;
// the caller renames it into place or removes it.
func writeGraphTempFile(ctx context.Context, tx *sql.Tx, dir string, gen int64, tag [vectorindex.TagSize]byte) (string, error) {
	tmp, err := writeGraphTemp(ctx, tx, dir, gen, tag, true)
	if errors.Is(err, errEdgeCount) {
		tmp, err = writeGraphTemp(ctx, tx, dir, gen, tag, false)
	}
	return tmp, err
}

// writeGraphTemp is writeGraphTempFile with writeEntityGraph's countRows. The body streams out
// behind a blank header, written last once its length and checksum are known.
func writeGraphTemp(ctx context.Context, tx *sql.Tx, dir string, gen int64, tag [vectorindex.TagSize]byte, countRows bool) (tmp string, err error) {
	f, err := vectorindex.CreateTemp(dir)
	if err != nil {
		return "", err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	w := bufio.NewWriterSize(f, 1<<20)
	if _, err := w.Write(make([]byte, vectorindex.HeaderSize)); err != nil {
		return "", err
	}
	nodes, n, crc, err := writeEntityGraph(ctx, tx, w, countRows)
	if err != nil {
		return "", err
	}
	if err := w.Flush(); err != nil {
		return "", err
	}
	h := vectorindex.Header{Count: nodes, Gen: gen, Tag: tag, IDsLen: n, BodyCRC: crc}
	if _, err := f.WriteAt(h.Encode(graphFileMagic), 0); err != nil {
		return "", err
	}
	return f.Name(), vectorindex.SyncClose(f)
}
