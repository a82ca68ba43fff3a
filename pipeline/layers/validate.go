package layers

import (
	"fmt"
	"math"
)

// Validate reports the first option no build can use, naming it. The Builder uses every field as
// it is (start from DefaultOptions); MaxLayers 0 builds no layer, and then nothing else is read.
func (o Options) Validate() error {
	switch {
	case o.MaxLayers < 0:
		return fmt.Errorf("layers must not be negative, got %d", o.MaxLayers)
	case o.MaxLayers == 0:
		return nil
	case o.Dims < 1:
		return fmt.Errorf("layer dimensions must be at least 1, got %d", o.Dims)
	case o.ClusterSize < 1:
		return fmt.Errorf("cluster size must be at least 1, got %d", o.ClusterSize)
	case o.MaxClusterSize < o.ClusterSize:
		return fmt.Errorf("max cluster size %d is below cluster size %d", o.MaxClusterSize, o.ClusterSize)
	case o.MaxComponents < 1:
		return fmt.Errorf("mixture components must be at least 1, got %d", o.MaxComponents)
	case !(o.Threshold >= 0 && o.Threshold < 1):
		return fmt.Errorf("membership threshold must be in [0, 1), got %g", o.Threshold)
	case o.Concurrency < 1:
		return fmt.Errorf("layer concurrency must be at least 1, got %d", o.Concurrency)
	case !(o.AggregateK >= 0) || math.IsInf(o.AggregateK, 1):
		// 0 puts τ at the mean of the pairs' counts.
		return fmt.Errorf("aggregate k must not be negative, got %g", o.AggregateK)
	}
	return nil
}
