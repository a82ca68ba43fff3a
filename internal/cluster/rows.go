package cluster

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
)

// ErrNoRows is returned, wrapped with the name of the function, when a function that needs data
// is given none.
var ErrNoRows = errors.New("no rows")

// flatten copies rows into one row-major slice after checking that there is at least one row,
// that every row has the same, non-zero length and that every value is finite. The numeric code
// works on the flat copy: one allocation, contiguous rows, no pointer chasing in inner loops.
func flatten(rows [][]float64) (x []float64, n, d int, err error) {
	n = len(rows)
	if n == 0 {
		return nil, 0, 0, ErrNoRows
	}
	d = len(rows[0])
	if d == 0 {
		return nil, 0, 0, errors.New("rows have no columns")
	}
	x = make([]float64, n*d)
	for i, r := range rows {
		if len(r) != d {
			return nil, 0, 0, fmt.Errorf("row %d has %d values, want %d like row 0", i, len(r), d)
		}
		for j, v := range r {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, 0, 0, fmt.Errorf("row %d, column %d is %v", i, j, v)
			}
		}
		copy(x[i*d:], r)
	}
	return x, n, d, nil
}

// workerCount resolves a Workers option: positive values are used as given, anything else
// means one goroutine per available CPU.
func workerCount(w int) int {
	if w > 0 {
		return w
	}
	return runtime.GOMAXPROCS(0)
}

// blockRows is the number of rows per unit of parallel work. The partition of rows into blocks
// depends only on the number of rows, never on the number of goroutines, and partial sums are
// combined in block order, so results are bit-for-bit the same however many goroutines run.
const blockRows = 256

// numBlocks returns the number of blocks of blockRows rows needed to cover n rows.
func numBlocks(n int) int { return (n + blockRows - 1) / blockRows }

// parallel calls fn(t) for every task t in [0, tasks) on up to workers goroutines. Tasks are
// handed out in order from a shared counter; fn must only write to memory owned by its task.
func parallel(tasks, workers int, fn func(t int)) {
	if workers > tasks {
		workers = tasks
	}
	if workers <= 1 {
		for t := 0; t < tasks; t++ {
			fn(t)
		}
		return
	}
	var (
		next atomic.Int64
		wg   sync.WaitGroup
	)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				t := int(next.Add(1)) - 1
				if t >= tasks {
					return
				}
				fn(t)
			}
		}()
	}
	wg.Wait()
}
