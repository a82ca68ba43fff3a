package embedded

import (
	"bufio"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"unsafe"

	"github.com/stratarag/strata/internal/graph"
)

// Vector files (and the entity graph file, entitygraphfile.go, which follows the same rules) hold
// each vector index's decoded, normalized embeddings next to strata.db, so that
// a fresh query process reads them in one sequential pass instead of decoding every row of
// SQLite (1.7 s for 20 k entities).
//
// Who writes them: only the writer (the process holding strata.lock), when it closes the store
// (the end of `strata ingest`) or calls WriteQueryFiles. Readers never write: they may run in a
// read-only directory, and the writer is the one process that knows no write can slip in between
// reading the vectors and labelling the file. A reader that finds a file missing, stale or
// damaged reads SQLite instead (and caches the result for its own lifetime), so a store from
// before vector files, or one whose ingest was killed before Close, is slower to query until the
// next `strata ingest` (even one that finds nothing new) writes them.
//
// Why a file can never be read as the vectors of another state of the store: the writer builds
// it from one snapshot at generation G, labels it with G and a fresh random tag, and commits the
// tag to meta (vectorFileMetaKey) in a write transaction that first checks the generation is
// still G; then it renames the file into place. A reader accepts a file only when its generation
// and tag equal those of the reader's own snapshot. Any later write that changes the index bumps
// the generation; a store rebuilt from scratch, or one that lost its newest commits in an OS
// crash, lacks the tag (WAL commits are lost newest first, so a tag is never kept while the
// vectors it labels are lost). A file is written to a temporary name, fsynced and renamed, so a
// process killed mid-write leaves the old file or none under the final name; the size check and a
// CRC-32C over the whole file catch anything else (an OS crash before the data reached the disk,
// a copied-over or truncated file).
//
// Layout (little-endian), vectorHeaderSize bytes of header, then the vectors, then the ids:
//
//	 0  magic "STRATAVF"
//	 8  uint32 format version (vectorFileVersion)
//	12  uint32 dimensions (0 when the index holds no vectors)
//	16  uint64 count of vectors
//	24  int64  generation of the index the vectors were read at
//	32  [16]byte tag, also stored in meta under vectorFileMetaKey(index)
//	48  uint64 length in bytes of the ids block
//	56  uint32 CRC-32C (Castagnoli) of everything after the header
//	60  uint32 CRC-32C of bytes 0..59
//	64  count×dimensions float32, row-major, each row of unit length
//	    ids block: per vector, a uvarint length and the id's bytes, in row order

const (
	vectorFileMagic   = "STRATAVF"
	vectorFileVersion = 1
	vectorHeaderSize  = 64
	vectorTagSize     = 16
	// vectorTempPattern names the writer's temporary files; any left behind belong to a killed
	// writer and are removed by the next one.
	vectorTempPattern = ".strata-vectors-*.tmp"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// vectorIndexes are the indexes that get a vector file.
var vectorIndexes = [...]graph.VectorIndex{graph.ChunkEmbedding, graph.EntityEmbedding, graph.CommunityEmbedding}

// vectorFileName is the file of index inside the data directory.
func vectorFileName(index graph.VectorIndex) string {
	return "strata-vectors-" + string(index) + ".f32"
}

// vectorFileMetaKey is the meta key holding the tag of index's current vector file.
func vectorFileMetaKey(index graph.VectorIndex) string {
	return "embedded.vector_file." + string(index)
}

// vectorFileHeader is the decoded header of a vector file.
type vectorFileHeader struct {
	dim     int
	count   int
	gen     int64
	tag     [vectorTagSize]byte
	idsLen  int64
	bodyCRC uint32
}

// encode returns the header's bytes, with its own checksum, for a file of kind magic.
func (h vectorFileHeader) encode(magic string) []byte {
	b := make([]byte, vectorHeaderSize)
	copy(b, magic)
	binary.LittleEndian.PutUint32(b[8:], vectorFileVersion)
	binary.LittleEndian.PutUint32(b[12:], uint32(h.dim))
	binary.LittleEndian.PutUint64(b[16:], uint64(h.count))
	binary.LittleEndian.PutUint64(b[24:], uint64(h.gen))
	copy(b[32:48], h.tag[:])
	binary.LittleEndian.PutUint64(b[48:], uint64(h.idsLen))
	binary.LittleEndian.PutUint32(b[56:], h.bodyCRC)
	binary.LittleEndian.PutUint32(b[60:], crc32.Checksum(b[:60], castagnoli))
	return b
}

// decodeVectorHeader checks and decodes the header of a file of kind magic (vectorFileMagic or
// graphFileMagic, whose count is its nodes and idsLen its body); size is the file's size.
func decodeVectorHeader(magic string, b []byte, size int64) (vectorFileHeader, error) {
	var h vectorFileHeader
	if len(b) < vectorHeaderSize || string(b[:8]) != magic {
		return h, fmt.Errorf("not a strata %s file", magic)
	}
	if v := binary.LittleEndian.Uint32(b[8:]); v != vectorFileVersion {
		return h, fmt.Errorf("vector file format %d, this strata reads %d", v, vectorFileVersion)
	}
	if crc32.Checksum(b[:60], castagnoli) != binary.LittleEndian.Uint32(b[60:]) {
		return h, errors.New("vector file header checksum mismatch")
	}
	dim := binary.LittleEndian.Uint32(b[12:])
	count := binary.LittleEndian.Uint64(b[16:])
	idsLen := binary.LittleEndian.Uint64(b[48:])
	// Bound the sizes before multiplying, so that a hostile header cannot overflow the check.
	if dim > 1<<16 || count > 1<<40 || idsLen > 1<<50 {
		return h, fmt.Errorf("vector file header out of range (%d dimensions, %d vectors)", dim, count)
	}
	if want := vectorHeaderSize + int64(count)*int64(dim)*4 + int64(idsLen); want != size {
		return h, fmt.Errorf("file is %d bytes, its header says %d", size, want)
	}
	if magic == vectorFileMagic && (dim == 0) != (count == 0) {
		return h, fmt.Errorf("vector file header holds %d vectors of %d dimensions", count, dim)
	}
	h.dim, h.count, h.idsLen = int(dim), int(count), int64(idsLen)
	h.gen = int64(binary.LittleEndian.Uint64(b[24:]))
	copy(h.tag[:], b[32:48])
	h.bodyCRC = binary.LittleEndian.Uint32(b[56:])
	return h, nil
}

// vectorFileState is what a snapshot says the current vector file of an index must carry.
type vectorFileState struct {
	gen int64
	tag string // hex; "" when no file was ever labelled in this store
}

// check refuses a file (what names it in the error) whose header carries another generation or
// tag than the store's snapshot.
func (want vectorFileState) check(what string, h vectorFileHeader) error {
	if h.gen != want.gen || hex.EncodeToString(h.tag[:]) != want.tag {
		return fmt.Errorf("%s is of generation %d tag %x, the store is at %d tag %s", what, h.gen, h.tag, want.gen, want.tag)
	}
	return nil
}

// readVectorFileState reads the generation and file tag of index in the snapshot of tx.
func readVectorFileState(ctx context.Context, tx *sql.Tx, index graph.VectorIndex) (vectorFileState, error) {
	return readFileState(ctx, tx, string(index), vectorFileMetaKey(index))
}

// readFileState reads the generation genName and the file tag under metaKey in the snapshot of tx.
func readFileState(ctx context.Context, tx *sql.Tx, genName, metaKey string) (vectorFileState, error) {
	var st vectorFileState
	var err error
	if st.gen, err = generation(ctx, tx, genName); err != nil {
		return st, err
	}
	err = tx.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = ?`, metaKey).Scan(&st.tag)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return st, fmt.Errorf("read %s: %w", metaKey, err)
	}
	return st, nil
}

// readVectorFile reads the vector file at path in one sequential pass and returns its vectors
// when the file is whole and carries exactly the generation and tag of want. Any other file is
// an error saying why it was refused; the caller falls back to SQLite. With mapped, the vectors
// are the file's pages mapped into memory (mappedVectorFile) where the system allows it.
func readVectorFile(path string, want vectorFileState, mapped bool) (*vectorSet, error) {
	if want.tag == "" {
		return nil, errors.New("the store has no vector file labelled")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if mapped && littleEndian() && fi.Size() > 0 {
		if m, err := mapFile(f, fi.Size()); err == nil {
			set, err := mappedVectorFile(m, want)
			if err != nil {
				unmapFile(m)
			}
			return set, err
		}
		// Not mappable here: read it.
	}
	hb := make([]byte, vectorHeaderSize)
	if _, err := io.ReadFull(f, hb); err != nil {
		return nil, fmt.Errorf("read vector file header: %w", err)
	}
	h, err := decodeVectorHeader(vectorFileMagic, hb, fi.Size())
	if err != nil {
		return nil, err
	}
	if err := want.check("vector file", h); err != nil {
		return nil, err
	}
	set := &vectorSet{gen: h.gen, dim: h.dim, vecs: make([]float32, h.count*h.dim), ids: make([]string, 0, h.count), fromFile: true}
	// The vectors are read straight into the float32 slice's memory: no second buffer, no
	// per-number decoding (which cost more than the read itself). The file is little-endian;
	// on a big-endian CPU the words are swapped after the checksum.
	raw := float32Bytes(set.vecs)
	if _, err := io.ReadFull(f, raw); err != nil {
		return nil, fmt.Errorf("read vectors: %w", err)
	}
	crc := crc32.Update(0, castagnoli, raw)
	ids := make([]byte, h.idsLen)
	if _, err := io.ReadFull(f, ids); err != nil {
		return nil, fmt.Errorf("read ids: %w", err)
	}
	if crc = crc32.Update(crc, castagnoli, ids); crc != h.bodyCRC {
		return nil, errors.New("vector file checksum mismatch")
	}
	if !littleEndian() {
		for i := 0; i < len(raw); i += 4 {
			set.vecs[i/4] = math.Float32frombits(binary.LittleEndian.Uint32(raw[i:]))
		}
	}
	if set.ids, err = decodeVectorIDs(set.ids, ids, h.count); err != nil {
		return nil, err
	}
	return set, nil
}

// decodeVectorIDs appends the count ids of a vector file's ids block to dst.
func decodeVectorIDs(dst []string, ids []byte, count int) ([]string, error) {
	for len(ids) > 0 {
		n, k := binary.Uvarint(ids)
		if k <= 0 || n > uint64(len(ids)-k) {
			return nil, errors.New("vector file ids block is malformed")
		}
		dst = append(dst, string(ids[k:k+int(n)]))
		ids = ids[k+int(n):]
	}
	if len(dst) != count {
		return nil, fmt.Errorf("vector file holds %d ids for %d vectors", len(dst), count)
	}
	return dst, nil
}

// mappedVectorFile checks a vector file mapped into m, as readVectorFile reads one, and returns
// its vectors, which point into m: m stays mapped until the store closes (Store.unmapAll).
func mappedVectorFile(m []byte, want vectorFileState) (*vectorSet, error) {
	h, err := decodeVectorHeader(vectorFileMagic, m, int64(len(m)))
	if err != nil {
		return nil, err
	}
	if err := want.check("vector file", h); err != nil {
		return nil, err
	}
	body := m[vectorHeaderSize:]
	if crc32.Checksum(body, castagnoli) != h.bodyCRC {
		return nil, errors.New("vector file checksum mismatch")
	}
	set := &vectorSet{gen: h.gen, dim: h.dim, ids: make([]string, 0, h.count), fromFile: true, mapping: m}
	if n := h.count * h.dim; n > 0 {
		// The header check bounds the size; offset 64 keeps every float 4-byte aligned.
		set.vecs = unsafe.Slice((*float32)(unsafe.Pointer(&body[0])), n)
	}
	ids := body[4*h.count*h.dim:]
	if set.ids, err = decodeVectorIDs(set.ids, ids, h.count); err != nil {
		return nil, err
	}
	return set, nil
}

// vectorFileWriter writes a vector file row by row, so that writing one never holds more than a
// row of the index in memory: the vectors go to the file as they come, the ids to a second
// temporary file appended at the end, and the header, which needs the counts, last.
type vectorFileWriter struct {
	f, idf *os.File
	w, idw *bufio.Writer
	crc    uint32 // CRC-32C of the vectors so far
	idsLen int64
	dim    int
	count  int
	buf    []byte
}

func newVectorFileWriter(dir string) (*vectorFileWriter, error) {
	f, err := newTempFile(dir)
	if err != nil {
		return nil, err
	}
	idf, err := newTempFile(dir)
	if err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	vw := &vectorFileWriter{f: f, idf: idf, w: bufio.NewWriterSize(f, 1<<20), idw: bufio.NewWriterSize(idf, 1<<16)}
	if _, err := vw.w.Write(make([]byte, vectorHeaderSize)); err != nil { // the header goes last
		vw.abort()
		return nil, err
	}
	return vw, nil
}

// add appends one row; v must have the dimensions of the rows before it.
func (vw *vectorFileWriter) add(id string, v []float32) error {
	if vw.count == 0 {
		vw.dim = len(v)
	} else if len(v) != vw.dim {
		return fmt.Errorf("vector %s has %d dimensions, others have %d", id, len(v), vw.dim)
	}
	vw.buf = vw.buf[:0]
	for _, x := range v {
		vw.buf = binary.LittleEndian.AppendUint32(vw.buf, math.Float32bits(x))
	}
	vw.crc = crc32.Update(vw.crc, castagnoli, vw.buf)
	if _, err := vw.w.Write(vw.buf); err != nil {
		return err
	}
	vw.buf = binary.AppendUvarint(vw.buf[:0], uint64(len(id)))
	vw.buf = append(vw.buf, id...)
	vw.idsLen += int64(len(vw.buf))
	if _, err := vw.idw.Write(vw.buf); err != nil {
		return err
	}
	vw.count++
	return nil
}

// finish completes the file as of generation gen, labelled with tag, fsyncs it and returns its
// name; the caller renames it into place or removes it.
func (vw *vectorFileWriter) finish(gen int64, tag [vectorTagSize]byte) (tmp string, err error) {
	defer func() {
		if err != nil {
			vw.abort()
		}
	}()
	if err := vw.idw.Flush(); err != nil {
		return "", err
	}
	if _, err := vw.idf.Seek(0, io.SeekStart); err != nil {
		return "", err
	}
	// The body's checksum runs over the vectors and then the ids, so it goes on over the ids
	// as they are copied after the vectors.
	buf := make([]byte, 1<<16)
	for {
		n, rerr := vw.idf.Read(buf)
		vw.crc = crc32.Update(vw.crc, castagnoli, buf[:n])
		if _, err := vw.w.Write(buf[:n]); err != nil {
			return "", err
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return "", rerr
		}
	}
	if err := vw.w.Flush(); err != nil {
		return "", err
	}
	h := vectorFileHeader{dim: vw.dim, count: vw.count, gen: gen, tag: tag, idsLen: vw.idsLen, bodyCRC: vw.crc}
	if _, err := vw.f.WriteAt(h.encode(vectorFileMagic), 0); err != nil {
		return "", err
	}
	vw.idf.Close()
	os.Remove(vw.idf.Name())
	return vw.f.Name(), syncClose(vw.f)
}

// abort closes and removes both temporary files.
func (vw *vectorFileWriter) abort() {
	vw.f.Close()
	os.Remove(vw.f.Name())
	vw.idf.Close()
	os.Remove(vw.idf.Name())
}

// WriteQueryFiles brings the vector file of every index and the entity graph file up to date
// with the store, for fresh query processes to read instead of SQLite (see the top of
// vectorfile.go). Only a writable store writes them; Close calls it. Files that are current are
// left alone.
func (s *Store) WriteQueryFiles(ctx context.Context) error {
	if s.readOnly {
		return fmt.Errorf("write query files: store %s is open read-only", s.dir)
	}
	// Only the lock holder creates temporary files, so any found now are a killed writer's.
	if old, err := filepath.Glob(filepath.Join(s.absDir, vectorTempPattern)); err == nil {
		for _, p := range old {
			os.Remove(p)
		}
	}
	for _, index := range vectorIndexes {
		if err := s.writeVectorFile(ctx, index); err != nil {
			return fmt.Errorf("write %s vector file in %s: %w", index, s.dir, err)
		}
	}
	if err := s.writeGraphFile(ctx); err != nil {
		return fmt.Errorf("write entity graph file in %s: %w", s.dir, err)
	}
	return nil
}

func (s *Store) writeVectorFile(ctx context.Context, index graph.VectorIndex) error {
	table, _ := vectorTable(index)
	path := filepath.Join(s.absDir, vectorFileName(index))
	var st vectorFileState
	if err := s.read(ctx, "read vector file state", func(tx *sql.Tx) (err error) {
		st, err = readVectorFileState(ctx, tx, index)
		return err
	}); err != nil {
		return err
	}
	if checkFile(path, vectorFileMagic, "vector file", st) == nil {
		return nil // current and whole
	}
	var tag [vectorTagSize]byte
	if _, err := rand.Read(tag[:]); err != nil {
		return err
	}
	var tmp string
	var gen int64
	// The file is written from one snapshot, row by row: the index is never held in memory
	// whole, whatever its size.
	if err := s.read(ctx, "write vector file", func(tx *sql.Tx) (err error) {
		if gen, err = generation(ctx, tx, string(index)); err != nil {
			return err
		}
		tmp, err = streamVectorFile(ctx, tx, s.absDir, table, gen, tag)
		return err
	}); err != nil {
		return err
	}
	defer os.Remove(tmp) // a no-op once renamed
	return s.installFile(ctx, string(index), vectorFileMetaKey(index), gen, tag, tmp, path)
}

// streamVectorFile writes the embeddings of table in tx's snapshot, normalized, in id order (the
// rows loadVectors would read) to a new temporary vector file of generation gen labelled tag, and
// returns its name.
func streamVectorFile(ctx context.Context, tx *sql.Tx, dir, table string, gen int64, tag [vectorTagSize]byte) (tmp string, err error) {
	vw, err := newVectorFileWriter(dir)
	if err != nil {
		return "", err
	}
	if _, err := eachVector(ctx, tx, table, vw.add); err != nil {
		vw.abort()
		return "", err
	}
	return vw.finish(gen, tag)
}

// checkFile checks, in one pass and without holding it in memory, that the vector or entity
// graph file (magic; what names it in errors) at path is whole and carries exactly the
// generation and tag of want.
func checkFile(path, magic, what string, want vectorFileState) error {
	f, h, _, err := openChecked(path, magic, what, want)
	if err != nil {
		return err
	}
	defer f.Close()
	crc := crc32.New(castagnoli)
	if _, err := io.Copy(crc, bufio.NewReaderSize(f, 1<<16)); err != nil {
		return fmt.Errorf("read %s: %w", what, err)
	}
	if crc.Sum32() != h.bodyCRC {
		return fmt.Errorf("%s checksum mismatch", what)
	}
	return nil
}

// openChecked opens the vector or entity graph file at path, positioned after its header, once
// the header says it is one of generation and tag want; it returns the header and the file's
// size. The caller closes the file.
func openChecked(path, magic, what string, want vectorFileState) (*os.File, vectorFileHeader, int64, error) {
	if want.tag == "" {
		return nil, vectorFileHeader{}, 0, fmt.Errorf("the store has no %s labelled", what)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, vectorFileHeader{}, 0, err
	}
	h, size, err := func() (vectorFileHeader, int64, error) {
		fi, err := f.Stat()
		if err != nil {
			return vectorFileHeader{}, 0, err
		}
		hb := make([]byte, vectorHeaderSize)
		if _, err := io.ReadFull(f, hb); err != nil {
			return vectorFileHeader{}, 0, fmt.Errorf("read %s header: %w", what, err)
		}
		h, err := decodeVectorHeader(magic, hb, fi.Size())
		if err != nil {
			return vectorFileHeader{}, 0, err
		}
		return h, fi.Size(), want.check(what, h)
	}()
	if err != nil {
		f.Close()
		return nil, vectorFileHeader{}, 0, err
	}
	return f, h, size, nil
}

// installFile labels the file tmp, built from generation gen of genName, with tag in meta and
// renames it to path, unless a write of this process moved the generation on in between (then
// the next call catches up).
func (s *Store) installFile(ctx context.Context, genName, metaKey string, gen int64, tag [vectorTagSize]byte, tmp, path string) error {
	stale := false
	err := s.write(ctx, "label "+filepath.Base(path), func(tx *sql.Tx) error {
		now, err := generation(ctx, tx, genName)
		if err != nil {
			return err
		}
		if now != gen {
			stale = true
			return nil
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
			metaKey, hex.EncodeToString(tag[:]))
		return err
	})
	if err != nil || stale {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	syncDir(s.absDir)
	return nil
}

// syncDir makes a rename in dir durable where the OS allows; a failure only risks the file
// being missing after an OS crash, which readers handle.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// loadVectorFile returns the vectors of index from its file when the file matches st, else nil
// and why not.
func (s *Store) loadVectorFile(index graph.VectorIndex, st vectorFileState) (*vectorSet, error) {
	// A store that answers one query (a fresh strata query process) maps the file rather than
	// copying it into fresh memory: the page faults and the copy of 32 MB of entity vectors were
	// a fifth of a fresh hi query's CPU on the mix corpus. A resident store reads it, so that
	// the memory of a generation it moves past is freed.
	set, err := readVectorFile(filepath.Join(s.absDir, vectorFileName(index)), st, !s.resident)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("no vector file: %w", err)
		}
		return nil, err
	}
	return set, nil
}

// float32Bytes returns the memory of v as bytes (in the CPU's byte order), for reading vectors
// without copying them.
func float32Bytes(v []float32) []byte {
	if len(v) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), 4*len(v))
}

// littleEndian reports whether the CPU stores numbers little-endian, as vector files do.
func littleEndian() bool {
	return binary.NativeEndian.Uint16([]byte{1, 0}) == 1
}
