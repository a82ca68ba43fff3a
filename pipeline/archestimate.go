package pipeline

import (
	"fmt"
	"math"

	"github.com/stratarag/strata/internal/llm"
)

// Ratios of the attributed-community estimate, measured on the multihop corpus ingested with
// --arch 3 through the fake model, whose shape the offline path shares (docs/ARCHITECTURE.md,
// attributed communities).
const (
	archEntitiesPerChunk   = 17.0
	archFirstLayerSize     = 80.0 // mean members of a layer-1 community
	archUpperLayerSize     = 7.0  // mean members of a community above layer 1
	archPromptPerCall      = 3300
	archCompletionPerCall  = 105
	archEstimateAssumption = "arch (--arch): one call per attributed community; communities estimated from %d chunks × %.0f entities in communities of ~%.0f (layer 1) and ~%.0f above, %d prompt and %d completion tokens each, as measured on multihop with the fake LLM; the real count depends on the graph extraction builds"
)

// archEstimate predicts the summary calls of the attributed-community hierarchy (Options.Arch)
// for a corpus of the given chunks: the hierarchy depends on the graph, which a dry run does not
// have, so it is the measured ratios above, stated in the assumption it returns.
func (in *Ingester) archEstimate(chunks int) (llm.StageEstimate, string, bool) {
	o := in.Options.Arch
	if o.MaxLayers == 0 || chunks == 0 {
		return llm.StageEstimate{}, "", false
	}
	nodes := float64(chunks) * archEntitiesPerChunk
	size := archFirstLayerSize
	calls := 0
	for range o.MaxLayers {
		if nodes <= float64(o.MinNodes) {
			break
		}
		comms := math.Ceil(nodes / size)
		if comms >= nodes {
			break
		}
		calls += int(comms)
		nodes, size = comms, archUpperLayerSize
	}
	est := llm.StageEstimate{Calls: calls, PromptTokens: calls * archPromptPerCall, CompletionTokens: calls * archCompletionPerCall}
	return est, fmt.Sprintf(archEstimateAssumption, chunks, archEntitiesPerChunk, archFirstLayerSize, archUpperLayerSize,
		archPromptPerCall, archCompletionPerCall), true
}
