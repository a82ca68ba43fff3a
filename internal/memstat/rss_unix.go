//go:build unix

package memstat

import (
	"runtime"
	"syscall"
)

// maxRSS is getrusage's ru_maxrss: KiB on Linux and the BSDs, bytes on macOS.
func maxRSS() uint64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil || ru.Maxrss < 0 {
		return 0
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return uint64(ru.Maxrss)
	}
	return uint64(ru.Maxrss) * 1024
}
