package embedded

import (
	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/graphalgo"
)

// leidenOptions checks p as every backend does (graph.LeidenParams.Validate) and converts it,
// with the store's way of releasing memory between Leiden's phases. graph's Tolerance 0 is
// exactly 0, which graphalgo spells negative: its zero value selects its default.
func (s *Store) leidenOptions(p graph.LeidenParams) (graphalgo.LeidenOptions, error) {
	if err := p.Validate(); err != nil {
		return graphalgo.LeidenOptions{}, err
	}
	tol := p.Tolerance
	if tol == 0 {
		tol = -1
	}
	return graphalgo.LeidenOptions{
		Gamma: p.Gamma, Theta: p.Theta, Tolerance: tol, MaxLevels: p.MaxLevels, Seed: p.Seed, Release: s.release,
	}, nil
}
