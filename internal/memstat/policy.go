package memstat

import "runtime/debug"

// Policy is the memory policy of a long run (an ingest, a server): the collector's target for the
// process, a lower one while the stages that hold large pointer-free arrays run, and whether the
// garbage a stage or a step leaves is collected at once and its pages handed back to the OS. The
// collector's target and the heap are the process's, so a process has one policy: its main builds
// it, and the stage runner it is given to applies it around the stages. Algorithms and stores only
// let go of what they hold, and call Release (handed to them as a plain func) where they have let
// go of large arrays. The zero Policy changes nothing.
type Policy struct {
	// GCPercent is the collector's target for the process (Apply); 0 leaves it as it is.
	GCPercent int
	// StageGCPercent lowers the target while the named stages run (Stage; see LowerGC).
	StageGCPercent map[string]int
	// ReturnFreed makes Release collect the garbage and hand its pages back to the OS: left to
	// the collector's pacing, the next step's allocations would pile on that garbage (up to
	// GCPercent again what was live at its last look), and pages kept free in pieces would not
	// hold the next step's large arrays. It costs milliseconds beside any stage.
	ReturnFreed bool
}

// Apply sets the collector's target for the process, unless GCPercent is 0.
func (p Policy) Apply() {
	if p.GCPercent != 0 {
		debug.SetGCPercent(p.GCPercent)
	}
}

// Stage lowers the collector's target for the stage named stage, if the policy names it, and
// returns what puts back the target it found.
func (p Policy) Stage(stage string) (end func()) {
	if percent, ok := p.StageGCPercent[stage]; ok {
		return LowerGC(percent)
	}
	return func() {}
}

// Release collects the garbage and hands its pages back to the OS when ReturnFreed; it does
// nothing otherwise.
func (p Policy) Release() {
	if p.ReturnFreed {
		debug.FreeOSMemory()
	}
}
