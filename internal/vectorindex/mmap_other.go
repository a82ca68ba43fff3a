//go:build !linux

package vectorindex

import (
	"errors"
	"os"
)

// mapFile is only implemented on Linux; elsewhere vector files are read into memory.
func mapFile(*os.File, int64) ([]byte, error) {
	return nil, errors.New("mapping files is not supported here")
}

// MapFile is mapFile for other packages' files laid out to be used in place.
func MapFile(f *os.File, size int64) ([]byte, error) { return mapFile(f, size) }

func Unmap([]byte) error { return nil }
