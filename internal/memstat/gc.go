package memstat

import "runtime/debug"

// LowerGC lowers the collector's target (GOGC) to percent unless it is lower already or the
// collector is off, and returns what puts back the target it found. The target is the
// process's: a caller must not run beside another that changes it.
//
// Policy.Stage uses it for the stages that hold large pointer-free arrays while they make
// garbage row by row:
// at the usual target the heap grows by a fraction of those arrays between collections, while
// marking them costs next to nothing.
func LowerGC(percent int) (restore func()) {
	old := debug.SetGCPercent(percent)
	if old < percent {
		debug.SetGCPercent(old)
	}
	return func() { debug.SetGCPercent(old) }
}
