package embedded

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	"github.com/stratarag/strata/internal/graph"
)

// lockFile is the name of the writer lock inside the data directory.
const lockFile = "strata.lock"

// writerLock is an exclusive flock on <dir>/strata.lock. flock locks belong to the open file
// description, so the kernel drops it when the process dies, however it dies: a killed ingest
// never leaves a stale lock behind.
type writerLock struct {
	f *os.File
}

// acquireWriterLock takes the lock without waiting; a held lock is reported as graph.ErrLocked.
func acquireWriterLock(dir, path string) (*writerLock, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open store %s: lock: %w", dir, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("open store %s: %w (another strata process is writing to it)", dir, graph.ErrLocked)
		}
		return nil, fmt.Errorf("open store %s: lock %s: %w", dir, path, err)
	}
	return &writerLock{f: f}, nil
}

// release drops the lock. The lock file stays; deleting it would race with a process that has
// just opened it and is about to lock it.
func (l *writerLock) release() error {
	return l.f.Close()
}
