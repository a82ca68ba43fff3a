package graphalgo

import "github.com/stratarag/strata/internal/graph"

// DefaultLeidenOptions returns the defaults spelled out: those of graph.DefaultLeidenParams,
// which both backends use, without its seed.
func DefaultLeidenOptions() LeidenOptions {
	p := graph.DefaultLeidenParams()
	return LeidenOptions{Gamma: p.Gamma, Theta: p.Theta, Tolerance: p.Tolerance, MaxLevels: p.MaxLevels}
}
