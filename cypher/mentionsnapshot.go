package cypher

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"

	"github.com/stratarag/strata/internal/mentionindex"
)

// The mention snapshot is the copy of every mention (residentMentions) on disk, beside the vector
// snapshots (vectorsnapshot.go) and used the same way: a reader whose mentions counter matches
// its generation builds the mention index from it rather than sending DocumentLinks statements
// (two per hi query, 10–130 ms each on mix depending on how warm the server is).
//
// Layout (little-endian): magic "STRATAMS", uint32 version; a uvarint-prefixed generation; a
// uvarint count of chunks, each a uvarint-prefixed id and document id, a varint position, a
// uvarint count of entities and their uvarint-prefixed ids; the CRC-32C of everything before.

const (
	mentionSnapshotMagic   = "STRATAMS"
	mentionSnapshotVersion = 1
	mentionSnapshotFile    = "mentions.snapshot"
)

// chunkMentions is one chunk of the mention copy: its document, position and the entities it
// mentions.
type chunkMentions struct {
	id, doc  string
	seq      int64
	entities []string
}

// mentionIndex builds the mention index of rows: every chunk first, as a mention is kept only
// when its chunk is known.
func mentionIndex(rows []chunkMentions) *mentionindex.Index {
	b := mentionindex.NewBuilder()
	mentions := 0
	for _, r := range rows {
		mentions += len(r.entities)
	}
	b.Grow(len(rows), mentions)
	for _, r := range rows {
		b.AddChunk(r.id, r.doc, r.seq)
	}
	for _, r := range rows {
		for _, e := range r.entities {
			b.AddMention(r.id, e)
		}
	}
	return b.Index()
}

// writeMentionSnapshot writes the rows of generation gen to path (writeAtomic).
func writeMentionSnapshot(path, gen string, rows []chunkMentions) error {
	buf := append([]byte(mentionSnapshotMagic), binary.LittleEndian.AppendUint32(nil, mentionSnapshotVersion)...)
	put := func(s string) {
		buf = binary.AppendUvarint(buf, uint64(len(s)))
		buf = append(buf, s...)
	}
	put(gen)
	buf = binary.AppendUvarint(buf, uint64(len(rows)))
	for _, r := range rows {
		put(r.id)
		put(r.doc)
		buf = binary.AppendVarint(buf, r.seq)
		buf = binary.AppendUvarint(buf, uint64(len(r.entities)))
		for _, e := range r.entities {
			put(e)
		}
	}
	buf = binary.LittleEndian.AppendUint32(buf, crc32.Checksum(buf, castagnoli))
	return writeAtomic(path, buf)
}

// readMentionSnapshot returns the rows of the snapshot at path when it is whole and of
// generation gen (errSnapshotStale when of another).
func readMentionSnapshot(path, gen string) ([]chunkMentions, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	malformed := fmt.Errorf("mention snapshot %s is malformed", path)
	head := len(mentionSnapshotMagic) + 4
	if len(data) < head+4 || string(data[:len(mentionSnapshotMagic)]) != mentionSnapshotMagic {
		return nil, malformed
	}
	if binary.LittleEndian.Uint32(data[len(mentionSnapshotMagic):]) != mentionSnapshotVersion {
		return nil, fmt.Errorf("mention snapshot %s: unknown version", path)
	}
	body := data[:len(data)-4]
	r := body[head:]
	bad := false
	str := func() string {
		n, k := binary.Uvarint(r)
		if k <= 0 || n > uint64(len(r)-k) {
			bad, r = true, nil
			return ""
		}
		s := string(r[k : k+int(n)])
		r = r[k+int(n):]
		return s
	}
	uvarint := func() uint64 {
		n, k := binary.Uvarint(r)
		if k <= 0 || n > uint64(len(r)) {
			bad, r = true, nil
			return 0
		}
		r = r[k:]
		return n
	}
	if g := str(); bad {
		return nil, malformed
	} else if g != gen {
		return nil, errSnapshotStale
	}
	if crc32.Checksum(body, castagnoli) != binary.LittleEndian.Uint32(data[len(data)-4:]) {
		return nil, fmt.Errorf("mention snapshot %s: checksum mismatch", path)
	}
	rows := make([]chunkMentions, uvarint())
	for i := range rows {
		rows[i].id, rows[i].doc = str(), str()
		seq, k := binary.Varint(r)
		if k <= 0 {
			return nil, malformed
		}
		r = r[k:]
		rows[i].seq = seq
		rows[i].entities = make([]string, uvarint())
		for j := range rows[i].entities {
			rows[i].entities[j] = str()
		}
		if bad {
			return nil, malformed
		}
	}
	if bad || len(r) != 0 {
		return nil, malformed
	}
	return rows, nil
}

// mentionSnapshotPath is where the mention snapshot lives in dir.
func mentionSnapshotPath(dir string) string { return filepath.Join(dir, mentionSnapshotFile) }

// mentionSnapshotGeneration reads the generation of the mention snapshot at path, without
// reading the rest.
func mentionSnapshotGeneration(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	return readGeneration(f, int64(len(mentionSnapshotMagic)+4))
}
