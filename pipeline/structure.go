package pipeline

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/pipeline/arch"
	"github.com/stratarag/strata/pipeline/layers"
)

// structure runs the graph-wide stages when the graph changed since they last completed: the
// hierarchical index, WCC, Leiden, reports. Each is a function of the stored graph and
// Options.Seed alone (the index counts degrees from the relations rather than reading those the
// previous components stage wrote), so a run resumed after an interruption, or one that added
// documents, builds what a clean run over the same documents builds; model-written summaries and
// reports come from the response cache.
func (in *Ingester) structure(ctx context.Context, rep *Report) error {
	stale, _, err := in.Store.Meta(ctx, graph.MetaStructureStale)
	if err != nil {
		return fmt.Errorf("read store metadata: %w", err)
	}
	if !graph.StructurePending(stale) {
		in.Log.Info().Msg("graph unchanged; communities are up to date")
		return nil
	}
	t := time.Now()
	if stale == graph.StructureLayersBuilt {
		in.Log.Info().Msg("summary layers already rebuilt by an interrupted run; resuming after them")
	} else if in.LayerSummarizer != nil && in.Options.Layers.MaxLayers > 0 {
		b := &layers.Builder{
			Store: in.Store, Embedder: in.Embedder, Summarizer: in.LayerSummarizer, Log: in.Log,
			Options: in.Options.Layers, Seed: in.Options.Seed,
		}
		if in.Options.Aggregate {
			b.Describer = in.RelationDescriber
			if b.Describer == nil {
				b.Describer = layers.ExtractiveRelations{}
			}
		}
		if rep.Layers, err = b.Build(ctx); err != nil {
			return fmt.Errorf("hierarchical index: %w", err)
		}
		// A run killed from here on resumes after the layers: the graph has not changed since
		// (any change sets the flag to "true" again), and the settings they were built with
		// are recorded with the flag.
		meta := map[string]string{graph.MetaStructureStale: graph.StructureLayersBuilt,
			graph.MetaLayers: in.layersSetting(), graph.MetaSeed: strconv.FormatInt(in.Options.Seed, 10)}
		if err := in.Store.Apply(ctx, graph.Batch{Meta: meta}); err != nil {
			return fmt.Errorf("record the rebuilt summary layers: %w", err)
		}
		in.stageDone(rep, "layers", t)
		for _, l := range rep.Layers {
			in.Log.Info().Int("layer", l.Layer).Int("members", l.Members).Int("clusters", l.Clusters).
				Int("largest", l.MaxCluster).Int("summaries", l.Summaries).Float64("sparsity", l.Sparsity).
				Int("pairs", l.Aggregate.Pairs).Float64("tau", l.Aggregate.Tau).Int("summary_relations", l.Aggregate.Relations).
				Msg("summary layer built")
		}
		t = time.Now()
	}
	if rep.Components, err = in.Store.ComputeComponents(ctx); err != nil {
		return fmt.Errorf("components: %w", err)
	}
	in.stageDone(rep, "components", t)
	t = time.Now()
	leiden := graph.DefaultLeidenParams()
	leiden.Seed = in.Options.Seed
	communities, err := in.Store.ComputeCommunities(ctx, leiden)
	if err != nil {
		return fmt.Errorf("communities: %w", err)
	}
	rep.Communities = len(communities)
	in.stageDone(rep, "communities", t)
	in.Log.Info().Int("components", rep.Components).Int("communities", rep.Communities).Msg("graph structure computed")
	if in.Reporter != nil {
		t = time.Now()
		if err := in.Reporter.Reports(ctx, in.Store, communities); err != nil {
			return fmt.Errorf("community reports: %w", err)
		}
		in.stageDone(rep, "reports", t)
	}
	if err := in.archHierarchy(ctx, rep); err != nil {
		return err
	}
	if err := in.Store.Apply(ctx, graph.Batch{Meta: map[string]string{graph.MetaStructureStale: "false"}}); err != nil {
		return fmt.Errorf("record the finished structure: %w", err)
	}
	return nil
}

// archHierarchy builds the attributed-community hierarchy when Options.Arch asks for one, and
// otherwise removes any a previous run built. It reads only layer-0 entities and their
// relations, so it can run after the other structure stages.
func (in *Ingester) archHierarchy(ctx context.Context, rep *Report) error {
	t := time.Now()
	summarizer := in.ArchSummarizer
	if summarizer == nil {
		summarizer = arch.Extractive{}
	}
	b := &arch.Builder{Store: in.Store, Embedder: in.Embedder, Summarizer: summarizer, Log: in.Log, Options: in.Options.Arch, Seed: in.Options.Seed}
	var err error
	if rep.Arch, err = b.Build(ctx); err != nil {
		return fmt.Errorf("attributed communities: %w", err)
	}
	if in.Options.Arch.MaxLayers > 0 {
		in.stageDone(rep, "arch", t)
	}
	return nil
}
