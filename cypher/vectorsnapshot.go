package cypher

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"unsafe"

	"github.com/stratarag/strata/internal/vectorindex"
)

// A vector snapshot is the in-memory copy of a vector index (residentVectors) on disk, so that
// a short-lived process (strata query) searches the vectors exactly and locally, as strata
// serve does, rather than through Neo4j's HNSW index: on the mix corpus the index took 100–370
// ms of a fresh hi query for 200 entities out of 20 k, the snapshot's read and search about 40
// ms. A snapshot holds the rows the copy's load statement returned (residentIndexes) and the
// generation they belong to; a process uses it only while the store's counter still says that
// generation, and the first process after a write loads the rows from Neo4j and writes the
// snapshot again (Config.SnapshotDir).
//
// Layout (little-endian), a 64-byte header and then the body:
//
//	 0  magic "STRATAVS"
//	 8  uint32 format version (snapshotVersion)
//	12  uint32 dimensions of the searched vectors
//	16  uint64 count of searched vectors
//	24  uint64 offset of the tail
//	32  uint32 CRC-32C (Castagnoli) of the body
//	36  uint32 CRC-32C of bytes 0..35
//	64  count×dimensions float32, the searched vectors as stored, in the copy's order
//	    count float64, their lengths (from the next multiple of 8)
//	tail: a uvarint-prefixed generation; per searched vector its uvarint-prefixed id; a uvarint
//	    count of unindexed embeddings, each a uvarint-prefixed id, a uvarint count of floats and
//	    the float32s.
//
// The vectors and lengths are used where they lie in the file's bytes, so that reading 20 k
// vectors of 384 dimensions costs the read of 32 MB and a checksum, not a decode.

const (
	snapshotMagic      = "STRATAVS"
	snapshotVersion    = 1
	snapshotHeaderSize = 64
	// snapshotTemp names a writer's temporary files in the snapshot directory.
	snapshotTemp = ".strata-snapshot-*.tmp"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// snapshotPath is where the snapshot of index lives in dir.
func snapshotPath(dir, index string) string {
	return filepath.Join(dir, index+".vectors")
}

// littleEndian: the vectors are used in place only on a little-endian machine; elsewhere
// snapshots are neither written nor read.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// normsAt is the offset of the lengths in a snapshot of count vectors of dim dimensions.
func normsAt(count, dim int) int {
	return (snapshotHeaderSize + 4*count*dim + 7) &^ 7
}

// writeSnapshot writes copy v (its vectors in its order, then the unindexed embeddings by id)
// to path (writeAtomic).
func writeSnapshot(path string, v *residentVectors) error {
	if !littleEndian {
		return errors.New("vector snapshots need a little-endian machine")
	}
	count := len(v.ids)
	at := normsAt(count, v.dim)
	buf := make([]byte, at+8*count, at+8*count+count*16)
	copy(buf[snapshotHeaderSize:], unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(v.vecs))), 4*len(v.vecs)))
	for i, n := range v.norms {
		binary.LittleEndian.PutUint64(buf[at+8*i:], math.Float64bits(n))
	}
	tail := len(buf)
	putString := func(s string) {
		buf = binary.AppendUvarint(buf, uint64(len(s)))
		buf = append(buf, s...)
	}
	putString(v.gen)
	for _, id := range v.ids {
		putString(id)
	}
	buf = binary.AppendUvarint(buf, uint64(len(v.unindexed)))
	for _, id := range slices.Sorted(maps.Keys(v.unindexed)) {
		putString(id)
		vec := v.unindexed[id]
		buf = binary.AppendUvarint(buf, uint64(len(vec)))
		for _, x := range vec {
			buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(x))
		}
	}
	h := buf[:snapshotHeaderSize]
	copy(h, snapshotMagic)
	binary.LittleEndian.PutUint32(h[8:], snapshotVersion)
	binary.LittleEndian.PutUint32(h[12:], uint32(v.dim))
	binary.LittleEndian.PutUint64(h[16:], uint64(count))
	binary.LittleEndian.PutUint64(h[24:], uint64(tail))
	binary.LittleEndian.PutUint32(h[32:], crc32.Checksum(buf[snapshotHeaderSize:], castagnoli))
	binary.LittleEndian.PutUint32(h[36:], crc32.Checksum(h[:36], castagnoli))

	return writeAtomic(path, buf)
}

// writeAtomic writes data to path through a temporary file renamed into place, so that a
// reader sees the old file or the new one and never a part.
func writeAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, snapshotTemp)
	if err != nil {
		return err
	}
	defer os.Remove(f.Name()) // a no-op once renamed
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// errNoSnapshot: a reader that keeps no copies in memory (Config.Resident off) found no current
// snapshot and cannot write one: it asks Neo4j as it would without snapshots, rather than
// loading a copy in every process.
var errNoSnapshot = errors.New("no current snapshot, and its directory is not writable")

// snapshotWritable returns errNoSnapshot for a store that is not resident when its snapshot
// directory cannot take a file; nil otherwise.
func (s *Store) snapshotWritable() error {
	if s.resident {
		return nil // loads its copies anyway
	}
	if err := os.MkdirAll(s.snapshotDir, 0o755); err != nil {
		s.log.Debug().Err(err).Msg("snapshot directory")
		return errNoSnapshot
	}
	f, err := os.CreateTemp(s.snapshotDir, snapshotTemp)
	if err != nil {
		s.log.Debug().Err(err).Msg("snapshot directory")
		return errNoSnapshot
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}

// errSnapshotStale: the snapshot belongs to another generation than the one asked for.
var errSnapshotStale = errors.New("vector snapshot is of another generation")

// readSnapshot fills copy v from the snapshot at path when it is whole, of generation gen and of
// dimension dim; otherwise it returns why not, and v is to be loaded again. With mapped, v's
// vectors are the file's pages, mapped (where the OS allows) rather than copied into fresh
// memory: for a process that answers a query or two and exits, reading 32 MB of entity vectors
// took 30–45 ms of a fresh hi query on mix, mapping them about a third of that. The mapping is
// never undone, so only such a process asks for it; a resident store reads, so that the memory
// of a generation it moves past is freed.
func readSnapshot(path, gen string, dim int, v *residentVectors, mapped bool) (err error) {
	if !littleEndian {
		return fs.ErrNotExist
	}
	data, unmap, err := snapshotBytes(path, mapped)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			unmap()
		}
	}()
	malformed := fmt.Errorf("vector snapshot %s is malformed", path)
	if len(data) < snapshotHeaderSize || string(data[:8]) != snapshotMagic ||
		binary.LittleEndian.Uint32(data[36:]) != crc32.Checksum(data[:36], castagnoli) {
		return malformed
	}
	if binary.LittleEndian.Uint32(data[8:]) != snapshotVersion {
		return fmt.Errorf("vector snapshot %s: unknown version", path)
	}
	d, count, tail := binary.LittleEndian.Uint32(data[12:]), binary.LittleEndian.Uint64(data[16:]), binary.LittleEndian.Uint64(data[24:])
	if d == 0 || count > uint64(len(data))/(4*uint64(d)) || tail > uint64(len(data)) ||
		uint64(normsAt(int(count), int(d))+8*int(count)) != tail {
		return malformed
	}
	r := data[tail:]
	next := func() (string, bool) {
		n, k := binary.Uvarint(r)
		if k <= 0 || n > uint64(len(r)-k) {
			return "", false
		}
		out := string(r[k : k+int(n)])
		r = r[k+int(n):]
		return out, true
	}
	g, ok := next()
	if !ok {
		return malformed
	}
	if g != gen || int(d) != dim {
		return errSnapshotStale // before the checksum: a stale file is not read through
	}
	if crc32.Checksum(data[snapshotHeaderSize:], castagnoli) != binary.LittleEndian.Uint32(data[32:]) {
		return fmt.Errorf("vector snapshot %s: checksum mismatch", path)
	}
	n := int(count)
	v.reset(gen, dim, n)
	v.vecs = unsafe.Slice((*float32)(unsafe.Pointer(&data[snapshotHeaderSize])), n*dim)
	v.norms = unsafe.Slice((*float64)(unsafe.Pointer(&data[normsAt(n, dim)])), n)
	v.ids = make([]string, n)
	for i := range v.ids {
		if v.ids[i], ok = next(); !ok {
			return malformed
		}
		v.index[v.ids[i]] = i
	}
	unindexed, k := binary.Uvarint(r)
	if k <= 0 || unindexed > uint64(len(r)) {
		return malformed
	}
	r = r[k:]
	for range unindexed {
		id, ok := next()
		m, k := binary.Uvarint(r)
		if !ok || k <= 0 || m > uint64(len(r)-k)/4 {
			return malformed
		}
		r = r[k:]
		vec := make([]float32, m)
		for i := range vec {
			vec[i] = math.Float32frombits(binary.LittleEndian.Uint32(r[4*i:]))
		}
		r = r[4*m:]
		v.unindexed[id] = vec
	}
	if len(r) != 0 {
		return malformed
	}
	v.loaded = true
	return nil
}

// snapshotBytes returns the contents of the file at path, mapped when mapped is true and the OS
// allows it, else read, with the function that releases a mapping.
func snapshotBytes(path string, mapped bool) (data []byte, unmap func(), err error) {
	unmap = func() {}
	if !mapped {
		data, err = os.ReadFile(path)
		return data, unmap, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, unmap, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, unmap, err
	}
	if fi.Size() > 0 {
		if m, err := vectorindex.MapFile(f, fi.Size()); err == nil {
			return m, func() { vectorindex.Unmap(m) }, nil
		}
	}
	data, err = io.ReadAll(f)
	return data, unmap, err
}

// WriteSnapshots writes, into dir, the snapshots that readers with that Config.SnapshotDir use:
// the vectors of each index a resident store copies, and the mentions, as the store holds them
// now. A writer calls it when it is done (strata ingest and delete), so that the first reader
// after it reads them rather than loading the copies itself.
func (s *Store) WriteSnapshots(ctx context.Context, dir string) error {
	gens, err := s.generations(ctx)
	if err != nil {
		return fmt.Errorf("snapshots: %w", err)
	}
	for index, src := range residentIndexes {
		dim, ok, err := s.vectorDim(ctx, index)
		if err != nil {
			return fmt.Errorf("snapshot of %s: %w", index, err)
		}
		if !ok {
			continue // no such index yet: readers search nothing
		}
		path := snapshotPath(dir, string(index))
		if g, err := snapshotGeneration(path); err == nil && g == gens[src.generation] {
			continue // a run that changed nothing, or another writer's snapshot
		}
		var v residentVectors
		if err := s.loadVectors(ctx, &v, src.load, src.generation, dim); err != nil {
			return fmt.Errorf("snapshot of %s: %w", index, err)
		}
		if err := writeSnapshot(path, &v); err != nil {
			return fmt.Errorf("snapshot of %s: %w", index, err)
		}
	}
	path := mentionSnapshotPath(dir)
	if g, err := mentionSnapshotGeneration(path); err == nil && g == gens[metaMentionGeneration] {
		return nil
	}
	var m residentMentions
	rows, err := s.loadMentions(ctx, &m)
	if err == nil {
		err = writeMentionSnapshot(path, m.gen, rows)
	}
	if err != nil {
		return fmt.Errorf("snapshot of the mentions: %w", err)
	}
	return nil
}

// snapshotGeneration reads the generation of the vector snapshot at path from its header and
// tail, without reading the vectors; the file is not checked otherwise.
func snapshotGeneration(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := make([]byte, snapshotHeaderSize)
	if _, err := io.ReadFull(f, h); err != nil || string(h[:8]) != snapshotMagic {
		return "", fmt.Errorf("vector snapshot %s is malformed", path)
	}
	return readGeneration(f, int64(binary.LittleEndian.Uint64(h[24:])))
}

// readGeneration reads the uvarint-prefixed generation at offset at of f.
func readGeneration(f *os.File, at int64) (string, error) {
	b := make([]byte, 64)
	n, err := f.ReadAt(b, at)
	if n == 0 {
		return "", err
	}
	g, k := binary.Uvarint(b[:n])
	if k <= 0 || g > uint64(n-k) {
		return "", fmt.Errorf("snapshot %s is malformed", f.Name())
	}
	return string(b[k : k+int(g)]), nil
}
