package vectorindex

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"unsafe"
)

// A vector file holds a Set on disk, labelled with the generation and a random tag of the state
// of the store it was read from (Label), so that a reader accepts it only for that state, and
// checksummed, so that a damaged or truncated file is refused rather than read. A file is written
// to a temporary name (CreateTemp), fsynced and renamed by its writer.
//
// Layout (little-endian), HeaderSize bytes of header, then the vectors, then the ids:
//
//	 0  magic "STRATAVF"
//	 8  uint32 format version (fileVersion)
//	12  uint32 dimensions (0 when the index holds no vectors)
//	16  uint64 count of vectors
//	24  int64  generation of the index the vectors were read at
//	32  [16]byte tag, the label's tag, which the store also keeps
//	48  uint64 length in bytes of the ids block
//	56  uint32 CRC-32C (Castagnoli) of everything after the header
//	60  uint32 CRC-32C of bytes 0..59
//	64  count×dimensions float32, row-major, each row of unit length
//	    ids block: per vector, a uvarint length and the id's bytes, in row order

// The vector file's magic, format version, header size and tag size.
const (
	FileMagic   = "STRATAVF"
	fileVersion = 1
	HeaderSize  = 64
	TagSize     = 16
	// TempPattern names the writer's temporary files; any left behind belong to a killed
	// writer and are removed by the next one.
	TempPattern = ".strata-vectors-*.tmp"
)

// Castagnoli is the CRC-32C table of the files' checksums.
var Castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Header is the decoded header of a vector file.
type Header struct {
	Dim     int // dimensions (0 when the file holds no vectors; always 0 in other kinds)
	Count   int // vectors (or what another kind of file counts)
	Gen     int64
	Tag     [TagSize]byte
	IDsLen  int64 // length of the ids block (or of another kind's body)
	BodyCRC uint32
}

// Encode returns the header's bytes, with its own checksum, for a file of kind magic.
func (h Header) Encode(magic string) []byte {
	b := make([]byte, HeaderSize)
	copy(b, magic)
	binary.LittleEndian.PutUint32(b[8:], fileVersion)
	binary.LittleEndian.PutUint32(b[12:], uint32(h.Dim))
	binary.LittleEndian.PutUint64(b[16:], uint64(h.Count))
	binary.LittleEndian.PutUint64(b[24:], uint64(h.Gen))
	copy(b[32:48], h.Tag[:])
	binary.LittleEndian.PutUint64(b[48:], uint64(h.IDsLen))
	binary.LittleEndian.PutUint32(b[56:], h.BodyCRC)
	binary.LittleEndian.PutUint32(b[60:], crc32.Checksum(b[:60], Castagnoli))
	return b
}

// DecodeHeader checks and decodes the header of a file of kind magic (FileMagic, or the magic of
// another kind of file that reuses the header, whose Count and IDsLen it defines); size is the
// file's size.
func DecodeHeader(magic string, b []byte, size int64) (Header, error) {
	var h Header
	if len(b) < HeaderSize || string(b[:8]) != magic {
		return h, fmt.Errorf("not a strata %s file", magic)
	}
	if v := binary.LittleEndian.Uint32(b[8:]); v != fileVersion {
		return h, fmt.Errorf("vector file format %d, this strata reads %d", v, fileVersion)
	}
	if crc32.Checksum(b[:60], Castagnoli) != binary.LittleEndian.Uint32(b[60:]) {
		return h, errors.New("vector file header checksum mismatch")
	}
	dim := binary.LittleEndian.Uint32(b[12:])
	count := binary.LittleEndian.Uint64(b[16:])
	idsLen := binary.LittleEndian.Uint64(b[48:])
	// Bound the sizes before multiplying, so that a hostile header cannot overflow the check.
	if dim > 1<<16 || count > 1<<40 || idsLen > 1<<50 {
		return h, fmt.Errorf("vector file header out of range (%d dimensions, %d vectors)", dim, count)
	}
	if want := HeaderSize + int64(count)*int64(dim)*4 + int64(idsLen); want != size {
		return h, fmt.Errorf("file is %d bytes, its header says %d", size, want)
	}
	if magic == FileMagic && (dim == 0) != (count == 0) {
		return h, fmt.Errorf("vector file header holds %d vectors of %d dimensions", count, dim)
	}
	h.Dim, h.Count, h.IDsLen = int(dim), int(count), int64(idsLen)
	h.Gen = int64(binary.LittleEndian.Uint64(b[24:]))
	copy(h.Tag[:], b[32:48])
	h.BodyCRC = binary.LittleEndian.Uint32(b[56:])
	return h, nil
}

// Label is what a file must carry to be read: the generation and tag of the store's state.
type Label struct {
	Gen int64
	Tag string // hex; "" when no file was ever labelled in this store
}

// Check refuses a file (what names it in the error) whose header carries another generation or
// tag than the store's snapshot.
func (want Label) Check(what string, h Header) error {
	if h.Gen != want.Gen || hex.EncodeToString(h.Tag[:]) != want.Tag {
		return fmt.Errorf("%s is of generation %d tag %x, the store is at %d tag %s", what, h.Gen, h.Tag, want.Gen, want.Tag)
	}
	return nil
}

// ReadFile reads the vector file at path in one sequential pass and returns its vectors
// when the file is whole and carries exactly the generation and tag of want. Any other file is
// an error saying why it was refused; the caller falls back to SQLite. With mapped, the vectors
// are the file's pages mapped into memory (mappedFile) where the system allows it.
func ReadFile(path string, want Label, mapped bool) (*Set, error) {
	if want.Tag == "" {
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
			set, err := mappedFile(m, want)
			if err != nil {
				Unmap(m)
			}
			return set, err
		}
		// Not mappable here: read it.
	}
	hb := make([]byte, HeaderSize)
	if _, err := io.ReadFull(f, hb); err != nil {
		return nil, fmt.Errorf("read vector file header: %w", err)
	}
	h, err := DecodeHeader(FileMagic, hb, fi.Size())
	if err != nil {
		return nil, err
	}
	if err := want.Check("vector file", h); err != nil {
		return nil, err
	}
	set := &Set{dim: h.Dim, vecs: make([]float32, h.Count*h.Dim), ids: make([]string, 0, h.Count)}
	// The vectors are read straight into the float32 slice's memory: no second buffer, no
	// per-number decoding (which cost more than the read itself). The file is little-endian;
	// on a big-endian CPU the words are swapped after the checksum.
	raw := float32Bytes(set.vecs)
	if _, err := io.ReadFull(f, raw); err != nil {
		return nil, fmt.Errorf("read vectors: %w", err)
	}
	crc := crc32.Update(0, Castagnoli, raw)
	ids := make([]byte, h.IDsLen)
	if _, err := io.ReadFull(f, ids); err != nil {
		return nil, fmt.Errorf("read ids: %w", err)
	}
	if crc = crc32.Update(crc, Castagnoli, ids); crc != h.BodyCRC {
		return nil, errors.New("vector file checksum mismatch")
	}
	if !littleEndian() {
		for i := 0; i < len(raw); i += 4 {
			set.vecs[i/4] = math.Float32frombits(binary.LittleEndian.Uint32(raw[i:]))
		}
	}
	if set.ids, err = decodeIDs(set.ids, ids, h.Count); err != nil {
		return nil, err
	}
	return set, nil
}

// decodeIDs appends the count ids of a vector file's ids block to dst.
func decodeIDs(dst []string, ids []byte, count int) ([]string, error) {
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

// mappedFile checks a vector file mapped into m, as ReadFile reads one, and returns
// its vectors, which point into m: m stays mapped until the set's owner unmaps it (Unmap).
func mappedFile(m []byte, want Label) (*Set, error) {
	h, err := DecodeHeader(FileMagic, m, int64(len(m)))
	if err != nil {
		return nil, err
	}
	if err := want.Check("vector file", h); err != nil {
		return nil, err
	}
	body := m[HeaderSize:]
	if crc32.Checksum(body, Castagnoli) != h.BodyCRC {
		return nil, errors.New("vector file checksum mismatch")
	}
	set := &Set{dim: h.Dim, ids: make([]string, 0, h.Count), mapping: m}
	if n := h.Count * h.Dim; n > 0 {
		// The header check bounds the size; offset 64 keeps every float 4-byte aligned.
		set.vecs = unsafe.Slice((*float32)(unsafe.Pointer(&body[0])), n)
	}
	ids := body[4*h.Count*h.Dim:]
	if set.ids, err = decodeIDs(set.ids, ids, h.Count); err != nil {
		return nil, err
	}
	return set, nil
}

// Writer writes a vector file row by row, so that writing one never holds more than a
// row of the index in memory: the vectors go to the file as they come, the ids to a second
// temporary file appended at the end, and the header, which needs the counts, last.
type Writer struct {
	f, idf *os.File
	w, idw *bufio.Writer
	crc    uint32 // CRC-32C of the vectors so far
	idsLen int64
	dim    int
	count  int
	buf    []byte
}

// NewWriter starts a vector file in a temporary file of dir (CreateTemp).
func NewWriter(dir string) (*Writer, error) {
	f, err := CreateTemp(dir)
	if err != nil {
		return nil, err
	}
	idf, err := CreateTemp(dir)
	if err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	vw := &Writer{f: f, idf: idf, w: bufio.NewWriterSize(f, 1<<20), idw: bufio.NewWriterSize(idf, 1<<16)}
	if _, err := vw.w.Write(make([]byte, HeaderSize)); err != nil { // the header goes last
		vw.Abort()
		return nil, err
	}
	return vw, nil
}

// Add appends one row; v must have the dimensions of the rows before it.
func (vw *Writer) Add(id string, v []float32) error {
	if vw.count == 0 {
		vw.dim = len(v)
	} else if len(v) != vw.dim {
		return fmt.Errorf("vector %s has %d dimensions, others have %d", id, len(v), vw.dim)
	}
	vw.buf = vw.buf[:0]
	for _, x := range v {
		vw.buf = binary.LittleEndian.AppendUint32(vw.buf, math.Float32bits(x))
	}
	vw.crc = crc32.Update(vw.crc, Castagnoli, vw.buf)
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

// Finish completes the file as of generation gen, labelled with tag, fsyncs it and returns its
// name; the caller renames it into place or removes it.
func (vw *Writer) Finish(gen int64, tag [TagSize]byte) (tmp string, err error) {
	defer func() {
		if err != nil {
			vw.Abort()
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
		vw.crc = crc32.Update(vw.crc, Castagnoli, buf[:n])
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
	h := Header{Dim: vw.dim, Count: vw.count, Gen: gen, Tag: tag, IDsLen: vw.idsLen, BodyCRC: vw.crc}
	if _, err := vw.f.WriteAt(h.Encode(FileMagic), 0); err != nil {
		return "", err
	}
	vw.idf.Close()
	os.Remove(vw.idf.Name())
	return vw.f.Name(), SyncClose(vw.f)
}

// Abort closes and removes both temporary files.
func (vw *Writer) Abort() {
	vw.f.Close()
	os.Remove(vw.f.Name())
	vw.idf.Close()
	os.Remove(vw.idf.Name())
}

// CheckFile checks, in one pass and without holding it in memory, that the vector or entity
// graph file (magic; what names it in errors) at path is whole and carries exactly the
// generation and tag of want.
func CheckFile(path, magic, what string, want Label) error {
	f, h, _, err := OpenChecked(path, magic, what, want)
	if err != nil {
		return err
	}
	defer f.Close()
	crc := crc32.New(Castagnoli)
	if _, err := io.Copy(crc, bufio.NewReaderSize(f, 1<<16)); err != nil {
		return fmt.Errorf("read %s: %w", what, err)
	}
	if crc.Sum32() != h.BodyCRC {
		return fmt.Errorf("%s checksum mismatch", what)
	}
	return nil
}

// OpenChecked opens the vector or entity graph file at path, positioned after its header, once
// the header says it is one of generation and tag want; it returns the header and the file's
// size. The caller closes the file.
func OpenChecked(path, magic, what string, want Label) (*os.File, Header, int64, error) {
	if want.Tag == "" {
		return nil, Header{}, 0, fmt.Errorf("the store has no %s labelled", what)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, Header{}, 0, err
	}
	h, size, err := func() (Header, int64, error) {
		fi, err := f.Stat()
		if err != nil {
			return Header{}, 0, err
		}
		hb := make([]byte, HeaderSize)
		if _, err := io.ReadFull(f, hb); err != nil {
			return Header{}, 0, fmt.Errorf("read %s header: %w", what, err)
		}
		h, err := DecodeHeader(magic, hb, fi.Size())
		if err != nil {
			return Header{}, 0, err
		}
		return h, fi.Size(), want.Check(what, h)
	}()
	if err != nil {
		f.Close()
		return nil, Header{}, 0, err
	}
	return f, h, size, nil
}

// CreateTemp creates a temporary file in dir (named after TempPattern), readable by all like a
// store's other files (os.CreateTemp makes it private).
func CreateTemp(dir string) (*os.File, error) {
	f, err := os.CreateTemp(dir, TempPattern)
	if err != nil {
		return nil, err
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	return f, nil
}

// SyncClose fsyncs and closes a file written by CreateTemp, so that a rename after it never
// installs a file whose contents are still in flight.
func SyncClose(f *os.File) error {
	if err := f.Sync(); err != nil {
		return err
	}
	return f.Close()
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
