//go:build !linux

package embedded

import (
	"errors"
	"os"
)

// mapFile is only implemented on Linux; elsewhere vector files are read into memory.
func mapFile(*os.File, int64) ([]byte, error) {
	return nil, errors.New("mapping files is not supported here")
}

func unmapFile([]byte) error { return nil }
