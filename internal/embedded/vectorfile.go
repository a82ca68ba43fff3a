package embedded

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sync/errgroup"

	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/vectorindex"
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
//
// The file format is vectorindex's (vectorindex.ReadFile, vectorindex.Writer).

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

// readVectorFileState reads the generation and file tag of index in the snapshot of tx.
func readVectorFileState(ctx context.Context, tx *sql.Tx, index graph.VectorIndex) (vectorindex.Label, error) {
	return readFileState(ctx, tx, string(index), vectorFileMetaKey(index))
}

// readFileState reads the generation genName and the file tag under metaKey in the snapshot of tx.
func readFileState(ctx context.Context, tx *sql.Tx, genName, metaKey string) (vectorindex.Label, error) {
	var st vectorindex.Label
	var err error
	if st.Gen, err = generation(ctx, tx, genName); err != nil {
		return st, err
	}
	err = tx.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = ?`, metaKey).Scan(&st.Tag)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return st, fmt.Errorf("read %s: %w", metaKey, err)
	}
	return st, nil
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
	if old, err := filepath.Glob(filepath.Join(s.absDir, vectorindex.TempPattern)); err == nil {
		for _, p := range old {
			os.Remove(p)
		}
	}
	// The files are independent: each is written from a snapshot of its own and installed under
	// the write lock. Written together they take the time of the largest (the entity vectors)
	// where there are cores to spare: 0.75 -> 0.5 s at the end of an update of the mix store.
	var g errgroup.Group
	for _, index := range vectorIndexes {
		g.Go(func() error {
			if err := s.writeVectorFile(ctx, index); err != nil {
				return fmt.Errorf("write %s vector file in %s: %w", index, s.dir, err)
			}
			return nil
		})
	}
	g.Go(func() error {
		if err := s.writeGraphFile(ctx); err != nil {
			return fmt.Errorf("write entity graph file in %s: %w", s.dir, err)
		}
		return nil
	})
	return g.Wait()
}

func (s *Store) writeVectorFile(ctx context.Context, index graph.VectorIndex) error {
	table, _ := vectorTable(index)
	path := filepath.Join(s.absDir, vectorFileName(index))
	var st vectorindex.Label
	if err := s.read(ctx, "read vector file state", func(tx *sql.Tx) (err error) {
		st, err = readVectorFileState(ctx, tx, index)
		return err
	}); err != nil {
		return err
	}
	if vectorindex.CheckFile(path, vectorindex.FileMagic, "vector file", st) == nil {
		return nil // current and whole
	}
	var tag [vectorindex.TagSize]byte
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
func streamVectorFile(ctx context.Context, tx *sql.Tx, dir, table string, gen int64, tag [vectorindex.TagSize]byte) (tmp string, err error) {
	vw, err := vectorindex.NewWriter(dir)
	if err != nil {
		return "", err
	}
	if _, err := eachVector(ctx, tx, table, vw.Add); err != nil {
		vw.Abort()
		return "", err
	}
	return vw.Finish(gen, tag)
}

// installFile labels the file tmp, built from generation gen of genName, with tag in meta and
// renames it to path, unless a write of this process moved the generation on in between (then
// the next call catches up).
func (s *Store) installFile(ctx context.Context, genName, metaKey string, gen int64, tag [vectorindex.TagSize]byte, tmp, path string) error {
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
func (s *Store) loadVectorFile(index graph.VectorIndex, st vectorindex.Label) (*vectorSet, error) {
	// A store that answers one query (a fresh strata query process) maps the file rather than
	// copying it into fresh memory: the page faults and the copy of 32 MB of entity vectors were
	// a fifth of a fresh hi query's CPU on the mix corpus. A resident store reads it, so that
	// the memory of a generation it moves past is freed.
	set, err := vectorindex.ReadFile(filepath.Join(s.absDir, vectorFileName(index)), st, !s.resident)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("no vector file: %w", err)
		}
		return nil, err
	}
	return &vectorSet{Set: set, gen: st.Gen, fromFile: true}, nil
}
