package vectorindex

import (
	"os"
	"syscall"
)

// mapFile maps the whole of f read-only, its pages populated up front (the checksum reads them
// all anyway, and one populating call costs less than a fault per page).
func mapFile(f *os.File, size int64) ([]byte, error) {
	return syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED|syscall.MAP_POPULATE)
}

// MapFile is mapFile for other packages' files laid out to be used in place (cypher's vector
// snapshots).
func MapFile(f *os.File, size int64) ([]byte, error) { return mapFile(f, size) }

func Unmap(b []byte) error { return syscall.Munmap(b) }
