package cluster

import (
	"fmt"
	"math"
)

// Projection is rows reduced by PCA (PCAStream's result), held flat: n rows of d coordinates.
// Up to exactRows rows they are held as computed, in float64; beyond that in float32, half the
// memory (72 MB rather than 144 for 1.8 M rows of 10), at a precision of seven significant
// digits, far finer than anything a mixture of a few dozen components resolves.
type Projection struct {
	n, d int
	f64  []float64
	f32  []float32
}

// exactRows is the most rows a Projection holds in float64: every layer of a corpus of tens of
// thousands of documents is clustered exactly as computed.
const exactRows = 1 << 18

func newProjection(n, d, exact int) *Projection {
	p := &Projection{n: n, d: d}
	if n <= exact {
		p.f64 = make([]float64, n*d)
	} else {
		p.f32 = make([]float32, n*d)
	}
	return p
}

// NewProjection holds rows, all of one length (as PCA returns them), as a Projection in
// float64.
func NewProjection(rows [][]float64) (*Projection, error) {
	if len(rows) == 0 {
		return nil, ErrNoRows
	}
	p := newProjection(len(rows), len(rows[0]), len(rows))
	for i, r := range rows {
		if len(r) != p.d {
			return nil, fmt.Errorf("row %d has %d values, want %d like row 0", i, len(r), p.d)
		}
		p.set(i, r)
	}
	return p, nil
}

// Len returns the number of rows.
func (p *Projection) Len() int { return p.n }

// Dims returns the number of coordinates of a row.
func (p *Projection) Dims() int { return p.d }

func (p *Projection) set(i int, row []float64) {
	if p.f64 != nil {
		copy(p.f64[i*p.d:(i+1)*p.d], row)
		return
	}
	for j, v := range row {
		p.f32[i*p.d+j] = float32(v)
	}
}

// at returns coordinate j of row i.
func (p *Projection) at(i, j int) float64 {
	if p.f64 != nil {
		return p.f64[i*p.d+j]
	}
	return float64(p.f32[i*p.d+j])
}

// row copies row i into dst (d values).
func (p *Projection) row(i int, dst []float64) {
	if p.f64 != nil {
		copy(dst[:p.d], p.f64[i*p.d:(i+1)*p.d])
		return
	}
	for j, v := range p.f32[i*p.d : (i+1)*p.d] {
		dst[j] = float64(v)
	}
}

// gather copies the rows given into one flat slice, checking that every value is finite.
func (p *Projection) gather(rows []int) ([]float64, error) {
	x := make([]float64, len(rows)*p.d)
	for k, r := range rows {
		dst := x[k*p.d : (k+1)*p.d]
		p.row(r, dst)
		for j, v := range dst {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("row %d, column %d is %v", r, j, v)
			}
		}
	}
	return x, nil
}
